/**
 * How the `openregion` command reports a failure that reaches it: one line on stderr, `openregion: <message>`, no
 * stack trace; `--debug` prints the stack and every cause instead. Programming errors (a TypeError and the like)
 * say so, since their message alone means little to the person who ran the command.
 *
 * Each failure also has a class, and each class its exit code, so a script can tell "not there" from "fix the input"
 * from "try again later" (README §Exit codes). 1 is kubectl's code for every failure; openregion keeps it for "not
 * found" and "not met in time", where its verbs and kubectl's must agree.
 */
import { CommanderError } from 'commander';

const EXIT_CODES = {
  /** Not found, a wait not met in time, or a failure of no other class. */
  failed: 1,
  /** The command line is wrong: an unknown flag, a missing argument, a value out of its form. */
  usage: 2,
  /** The input was refused: a conflict, an invalid object, manifest or configuration file. */
  rejected: 3,
  /** The server could not be reached, refused the credentials, or failed itself (5xx). */
  unreachable: 4,
  /** A bug in openregion: --debug shows where. */
  internal: 5,
} as const;
export type FailureClass = keyof typeof EXIT_CODES;

const BUG_NAMES = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'AssertionError']);

/** Error codes of the OpenStack client, the providers and Node's network stack, by class. */
const REJECTED_CODES = new Set([
  'OS_CONFLICT',
  'OS_BAD_REQUEST',
  'OS_CONFIG',
  'PROVIDER_CONFLICT',
  'PROVIDER_QUOTA',
  'PROVIDER_REFUSED',
]);
const UNREACHABLE_CODES = new Set([
  'OS_UNAUTHORIZED',
  'OS_FORBIDDEN',
  'OS_SERVER_ERROR',
  'OS_TRANSPORT',
  'PROVIDER_CREDENTIALS',
  'PROVIDER_TRANSIENT',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const REJECTED_NAMES = new Set(['KubeconfigError', 'KeyFileError', 'EnvFileError', 'RegionConfigError']);

/** The causes of `error`, itself first. */
function chain(error: unknown): unknown[] {
  const seen: unknown[] = [];
  for (let e: unknown = error; e !== undefined && !seen.includes(e); e = e instanceof Error ? e.cause : undefined) {
    seen.push(e);
  }
  return seen;
}

const codeOf = (e: unknown): unknown => (typeof e === 'object' && e !== null && 'code' in e ? e.code : undefined);

/** The error, among `error` and its causes, that Node's network stack (sockets, DNS, TLS, undici) raised. */
function networkCause(error: unknown): Error | undefined {
  return chain(error).find((e): e is Error => {
    const code = codeOf(e);
    return (
      e instanceof Error &&
      typeof code === 'string' &&
      (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_') || code.includes('CERT'))
    );
  });
}

/** An error that says its class (the CLI's own, see connect.ts's CliError). */
interface Classified {
  readonly failureClass: FailureClass;
}

/** The class of a failure, from the error or, for a network failure wrapped in another, from its causes. */
export function failureClass(error: unknown): FailureClass {
  if (typeof error === 'object' && error !== null && 'failureClass' in error) {
    return (error as Classified).failureClass;
  }
  // commander's own errors: the command line did not parse (its exit code 0 is help or --version, handled first).
  if (error instanceof CommanderError) return 'usage';
  if (networkCause(error) !== undefined) return 'unreachable';
  if (!(error instanceof Error)) return 'failed';
  const code = (error as { code?: unknown }).code;
  // The Kubernetes errors carry the HTTP status they stand for (kube/errors.ts).
  if (error.name.startsWith('Kube') && typeof code === 'number') {
    if (code === 404 || code === 410) return 'failed';
    if (code === 401 || code === 403 || code >= 500) return 'unreachable';
    return 'rejected';
  }
  if (typeof code === 'string' && REJECTED_CODES.has(code)) return 'rejected';
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return 'unreachable';
  if (REJECTED_NAMES.has(error.constructor.name)) return 'rejected';
  if (BUG_NAMES.has(error.name)) return 'internal';
  return 'failed';
}

export const exitCodeOf = (error: unknown): number => EXIT_CODES[failureClass(error)];

/** The text to write to stderr for `error`: one line, or with `debug` the stack and the cause chain. */
export function failureReport(error: unknown, debug: boolean): string {
  if (debug) return `openregion: ${stackOf(error)}\n`;
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').trim();
  const kind = failureClass(error);
  if (kind === 'internal' && error instanceof Error) {
    return `openregion: unexpected ${error.name}: ${message} (a bug; --debug shows where)\n`;
  }
  // A network failure's message ("fetch failed", "connect ECONNREFUSED …") hides what failed: say it.
  const network = networkCause(error);
  if (network !== undefined) return `openregion: cannot reach the server: ${network.message}\n`;
  return `openregion: ${message}\n`;
}

function stackOf(error: unknown): string {
  return chain(error)
    .map((e) => (e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : JSON.stringify(e)))
    .join('\ncaused by: ');
}
