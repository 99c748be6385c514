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

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields the line's head shows, or that a terminal reader does not need. */
const HEAD = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'controller', 'cluster', 'namespace', 'name']);

type Fields = Record<string, unknown>;

/** One JSON log line as text (without the newline); a line that is not JSON passes through. */
export function formatLogLine(line: string): string {
  let fields: Fields;
  try {
    fields = JSON.parse(line) as Fields;
  } catch {
    return line.trimEnd();
  }
  const level = typeof fields.level === 'number' ? fields.level : 30;
  const time = typeof fields.time === 'number' ? new Date(fields.time).toISOString().slice(11, 23) : '';
  const where = [fields.controller, objectOf(fields)].filter((part) => part !== undefined && part !== '').join(' ');
  const head = `${time} ${(LEVELS[level] ?? String(level)).padEnd(5)} ${where === '' ? '' : `${where}: `}`;
  const rest: string[] = [];
  let stack = '';
  for (const [key, value] of Object.entries(fields)) {
    if (HEAD.has(key) || value === undefined) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const err = value as { message?: unknown; stack?: unknown };
      rest.push(`err=${quoted(String(err.message))}`);
      if (level >= 50 && typeof err.stack === 'string') stack = `\n${indent(err.stack)}`;
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
