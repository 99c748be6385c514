/**
 * Structured logs (pino). Child loggers carry the request's cluster, namespace and name; credential-named fields are
 * redacted wherever they appear in the first few levels of a logged object.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
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
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const config = {
    // No logger `name`: the request's object name takes that key, as controller-runtime's logs have it.
    level: options.level ?? 'info',
    redact: { paths: [...redactPaths], censor: '***' },
    // Secret-shaped text inside any string (an upstream error quoting `mysql://root:pw@…`) is masked before the line
    // is written, in this one place for every logger (util/secret-text.ts).
    hooks: {
      logMethod(this: Logger, args: Parameters<Logger['info']>, method: (...a: unknown[]) => void) {
        method.apply(
          this,
          args.map((arg) => redactSecretsIn(arg)),
        );
      },
    },
  };
  if (options.format === 'text') return pino(config, textDestination(options.destination ?? process.stdout));
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}

/** The logger a reconcile pass gets: every line names the request. */
export function requestLogger(log: Logger, req: Request, controller: string): Logger {
  return log.child({ controller, cluster: req.cluster, namespace: req.namespace, name: req.name });
}

/** A logger that writes nothing, for tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
