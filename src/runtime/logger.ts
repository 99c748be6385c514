/**
 * Structured logs (pino), queryable as controller-runtime's zap logs are: a string `level`, an ISO-8601 `time`, and
 * the reconciled object as fields (`controller`, `kind`, `namespace`, `name`, `reconcileID`). Credential-named
 * fields are redacted wherever they appear in the first few levels of a logged object.
 *
 * The same warning about the same object, repeated within a window, is written once: the next one after the window
 * says how many were held back (`suppressed`), so a failure that retries every few seconds reads as one line a window.
 */
import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Logger, type LogFn } from 'pino';
import { systemClock, type Clock } from '../util/clock.ts';
import { redactSecretsIn } from '../util/secret-text.ts';
import { textDestination } from './log-text.ts';
import type { Request } from './types.ts';

const secretFields = ['password', 'secret', 'token', 'authorization', 'kubeconfig', 'clientKey', 'client-key-data'];

/** pino redaction paths: each secret field at the top and up to three levels down. */
const redactPaths: readonly string[] = secretFields.flatMap((field) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
  const join = (prefix: string) => (key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`);
  return [key, join('*'), join('*.*'), join('*.*.*')];
});

/** `json`: one JSON object a line (for machines, the default); `text`: a human-readable line (log-text.ts). */
export type LogFormat = 'json' | 'text';

interface LoggerOptions {
  readonly level?: string;
  readonly format?: LogFormat;
  /** Where lines go (tests pass a stream they read); stdout by default. */
  readonly destination?: DestinationStream;
  /** Stamps `time`, and times the repeated-warning window. */
  readonly clock?: Clock;
  /** How long an identical warning is held back after it was written; 0 writes every one. Default 5 minutes. */
  readonly repeatWindowMs?: number;
}

/** pino's numeric level of `warn`: warnings and worse are the lines an operator is asked to act on. */
const WARN = 40;
const DEFAULT_REPEAT_WINDOW_MS = 300_000;
/** Distinct warnings remembered at once (least recently seen forgotten first). */
const REPEAT_ENTRIES = 4096;
/** Bindings that differ on every pass of the same object, so they never make two warnings different. */
const PER_PASS = new Set(['reconcileID']);

/**
 * What makes two warnings different besides their message: the top-level fields that are plain values (a reason, a
 * row, a code). Nested objects (an error, a provider's cause chain) carry detail that differs on every occurrence
 * (request ids, timings) and do not.
 */
function scalarFields(first: unknown): [string, unknown][] {
  if (typeof first !== 'object' || first === null || first instanceof Error) return [];
  return Object.entries(first).filter(([, value]) => value === null || typeof value !== 'object');
}

/**
 * pino's logMethod hook holding back a warning identical (same level, bindings, message and plain-valued fields) to
 * one written within the window; the first one after the window carries `suppressed`, the count held back.
 */
function repeatLimiter(clock: Clock, windowMs: number) {
  const seen = new Map<string, { since: number; suppressed: number }>();
  return function logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn, level: number): void {
    if (level < WARN || windowMs <= 0) {
      method.apply(this, args);
      return;
    }
    const bindings = Object.entries(this.bindings()).filter(([key]) => !PER_PASS.has(key));
    const message = args.find((arg): arg is string => typeof arg === 'string') ?? '';
    const key = JSON.stringify([level, bindings, message, scalarFields(args[0])]);
    const now = clock.now();
    const last = seen.get(key);
    if (last !== undefined && now - last.since < windowMs) {
      last.suppressed += 1;
      return;
    }
    seen.delete(key);
    seen.set(key, { since: now, suppressed: 0 });
    for (const oldest of seen.keys()) {
      if (seen.size <= REPEAT_ENTRIES) break;
      seen.delete(oldest);
    }
    if (last === undefined || last.suppressed === 0) {
      method.apply(this, args);
      return;
    }
    const [first, ...rest] = args;
    const fields = typeof first === 'object' && first !== null && !(first instanceof Error) ? first : undefined;
    const merged =
      fields === undefined
        ? [
            { ...(first instanceof Error ? { err: first } : {}), suppressed: last.suppressed },
            ...(first instanceof Error ? rest : args),
          ]
        : [{ ...fields, suppressed: last.suppressed }, ...rest];
    method.apply(this, merged as Parameters<LogFn>);
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const clock = options.clock ?? systemClock;
  const limitRepeats = repeatLimiter(clock, options.repeatWindowMs ?? DEFAULT_REPEAT_WINDOW_MS);
  const config = {
    // No logger `name`: the request's object name takes that key, as controller-runtime's logs have it.
    level: options.level ?? 'info',
    redact: { paths: [...redactPaths], censor: '***' },
    // `"level":"warn"`, not pino's 40: what a log query (and a person) filters on.
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: () => `,"time":"${new Date(clock.now()).toISOString()}"`,
    // Secret-shaped text inside any string (an upstream error quoting `mysql://root:pw@…`) is masked before the line
    // is written, in this one place for every logger (util/secret-text.ts); then repeats are held back.
    hooks: {
      logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn, level: number) {
        limitRepeats.call(this, args.map((arg) => redactSecretsIn(arg)) as Parameters<LogFn>, method, level);
      },
    },
  };
  if (options.format === 'text') return pino(config, textDestination(options.destination ?? process.stdout));
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}

/**
 * The logger a reconcile pass gets: every line names the request, the kind it is of, and the pass (a `reconcileID`
 * fresh for each, as controller-runtime's), so one pass's lines are found together.
 */
export function requestLogger(log: Logger, req: Request, controller: string, kind?: string): Logger {
  return log.child({
    controller,
    ...(kind === undefined ? {} : { kind }),
    cluster: req.cluster,
    namespace: req.namespace,
    name: req.name,
    reconcileID: randomUUID(),
  });
}

/** A logger that writes nothing, for tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
