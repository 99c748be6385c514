/** The one logger a test reads back: debug level, each line kept as written (one JSON document a line). */
import type { Logger } from 'pino';
import { createLogger } from '../logger.ts';

interface CapturedLogger {
  readonly log: Logger;
  /** The lines written so far, oldest first. */
  readonly lines: string[];
  /** The lines parsed. */
  readonly records: () => Record<string, unknown>[];
}

export function capturedLogger(): CapturedLogger {
  const lines: string[] = [];
  const destination = { write: (line: string) => void lines.push(line) };
  return {
    log: createLogger({ level: 'debug', destination }),
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
