/**
 * The OpenStack CLI's output formats (cliff's): `-f table` (the default, boxed), `value` (the bare values, one
 * a line), `json` and `yaml`, with `-c COLUMN` (repeatable) to keep some columns. A "show" is one record as
 * Field/Value rows. Pure: commands gather, this formats.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { stringify } from 'yaml';

const FORMATS = ['table', 'value', 'json', 'yaml'] as const;
type Format = (typeof FORMATS)[number];

export interface FormatFlags {
  readonly format: Format;
  readonly column: readonly string[];
}

/**
 * Adds `-f/--format` and `-c/--column` to a command, as the OpenStack CLI has them. With `optional`, there is no
 * default: the command keeps its own (kubectl-like) lines unless `-f` is given.
 */
export function withFormatOptions(command: Command, { optional = false } = {}): Command {
  const format = new Option('-f, --format <format>', 'the output format').choices(FORMATS);
  return command
    .addOption(optional ? format : format.default('table'))
    .option(
      '-c, --column <name>',
      'show only this column (repeatable)',
      (value: string, previous: readonly string[]) => [...previous, value],
      [] as string[],
    );
}

/** A cell's value: text, a list (one line each in a table), or a structure (JSON or YAML keep its shape). */
type Value = string | number | boolean | readonly unknown[] | Readonly<Record<string, unknown>> | undefined;

const text = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(text).join('\n');
  return typeof value === 'string' ? value : JSON.stringify(value);
};

function kept(names: readonly string[], wanted: readonly string[]): string[] {
  for (const name of wanted) {
    if (!names.includes(name)) {
      throw new InvalidArgumentError(`-c ${name}: no such column; the columns are ${names.join(', ')}`);
    }
  }
  return wanted.length === 0 ? [...names] : names.filter((n) => wanted.includes(n));
}

/** cliff's boxed table: `+---+` rules, `| cell |` rows, a multi-line cell spread over lines. */
function boxed(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const split = rows.map((row) => row.map((cell) => cell.split('\n')));
  const widths = header.map((h, i) => Math.max(h.length, ...split.flatMap((r) => (r[i] ?? []).map((l) => l.length))));
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+\n`;
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |\n`;
  let out = rule + line(header) + rule;
  for (const row of split) {
    const height = Math.max(1, ...row.map((c) => c.length));
    for (let l = 0; l < height; l++) out += line(row.map((c) => c[l] ?? ''));
  }
  return rows.length === 0 ? out : out + rule;
}

/** One record, as `openstack … show` prints it. */
export function formatShow(record: Readonly<Record<string, Value>>, flags: FormatFlags): string {
  const fields = kept(Object.keys(record), flags.column);
  const picked = Object.fromEntries(fields.map((f) => [f, record[f]]));
  switch (flags.format) {
    case 'json':
      return `${JSON.stringify(picked, null, 2)}\n`;
    case 'yaml':
      return stringify(picked);
    case 'value':
      return fields.map((f) => `${text(record[f])}\n`).join('');
    case 'table':
      return boxed(
        ['Field', 'Value'],
        fields.map((f) => [f, text(record[f])]),
      );
  }
}
