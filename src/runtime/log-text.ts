/**
 * Human-readable log lines for a terminal (`openregion up`'s default): pino still writes its JSON line, redaction
 * included, and this destination turns each into
 *
 *   14:20:44.123 WARN  server unikorn-region/web-1: provision failed  row=provider-error provider={"code":…}
 *
 * time (UTC), level, the request the line is about, the message, then every other field as key=value. An error
 * shows its message; its stack only at level error and above, where something unexpected happened.
 */
import type { DestinationStream } from 'pino';

/** pino's levels by number (what older lines carry) and by label (what createLogger writes). */
const LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const LABELS: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(LEVELS).map(([label, number]) => [number, label.toUpperCase()]),
);

/** Fields the line's head shows, or that a terminal reader does not need. */
const HEAD = new Set([
  'level',
  'time',
  'msg',
  'pid',
  'hostname',
  'controller',
  'kind',
  'cluster',
  'namespace',
  'name',
  'reconcileID',
]);

type Fields = Record<string, unknown>;

/** One JSON log line as text (without the newline); a line that is not JSON passes through. */
export function formatLogLine(line: string): string {
  let fields: Fields;
  try {
    fields = JSON.parse(line) as Fields;
  } catch {
    return line.trimEnd();
  }
  const level =
    typeof fields.level === 'number' ? fields.level : typeof fields.level === 'string' ? LEVELS[fields.level] : 30;
  const stamp = typeof fields.time === 'number' || typeof fields.time === 'string' ? new Date(fields.time) : undefined;
  const time = stamp === undefined || Number.isNaN(stamp.getTime()) ? '' : stamp.toISOString().slice(11, 23);
  const where = [fields.controller, objectOf(fields)].filter((part) => part !== undefined && part !== '').join(' ');
  const head = `${time} ${(LABELS[level ?? 30] ?? String(fields.level)).padEnd(5)} ${where === '' ? '' : `${where}: `}`;
  const rest: string[] = [];
  let stack = '';
  for (const [key, value] of Object.entries(fields)) {
    if (HEAD.has(key) || value === undefined) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const err = value as { message?: unknown; stack?: unknown };
      rest.push(`err=${quoted(String(err.message))}`);
      if ((level ?? 30) >= 50 && typeof err.stack === 'string') stack = `\n${indent(err.stack)}`;
      continue;
    }
    rest.push(`${key}=${typeof value === 'string' ? quoted(value) : JSON.stringify(value)}`);
  }
  const message = typeof fields.msg === 'string' ? fields.msg : '';
  return `${head}${message}${rest.length === 0 ? '' : `  ${rest.join(' ')}`}${stack}`;
}

/** A pino destination writing text lines to `out`. */
export function textDestination(out: { write(text: string): unknown }): DestinationStream {
  return {
    write: (line: string) => {
      out.write(`${formatLogLine(line)}\n`);
    },
  };
}

function objectOf(fields: Fields): string | undefined {
  const name = typeof fields.name === 'string' ? fields.name : undefined;
  if (name === undefined) return undefined;
  const namespace = typeof fields.namespace === 'string' && fields.namespace !== '' ? `${fields.namespace}/` : '';
  const cluster = typeof fields.cluster === 'string' && fields.cluster !== '' ? `${fields.cluster}:` : '';
  return `${cluster}${namespace}${name}`;
}

const quoted = (text: string): string => (/^[^\s"=]+$/.test(text) ? text : JSON.stringify(text));

const indent = (text: string): string =>
  text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
