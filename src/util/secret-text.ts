/**
 * Secret-shaped text, wherever it turns up in a message: the userinfo of a URL (`mysql://root:hunter2@db`), a bearer
 * or basic credential, and `password=`/`secret=`/`token=` pairs as connection strings and query strings carry them.
 * Upstream errors quote such text whole; the logger (runtime/logger.ts) and the OpenStack client's redaction both
 * pass every string through here, so it is written once.
 */
export const REDACTED = '***';

// A URL's userinfo: everything between `//` and the `@` before the host.
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;
// `Bearer <token>` / `Basic <credentials>` wherever it is quoted (a header dump, an echoed request).
const SCHEME_CREDENTIALS = /\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]{8,}=*/gi;
// key=value pairs whose key names a secret (query strings, DSNs, `password: x` in YAML-ish text).
const SECRET_PAIR =
  /\b((?:password|passwd|pwd|secret|client_secret|api_key|apikey|access_token|refresh_token|token)\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,"'}]+)/gi;

export function redactSecretText(text: string): string {
  return text
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`)
    .replace(SCHEME_CREDENTIALS, `$1 ${REDACTED}`)
    .replace(SECRET_PAIR, `$1${REDACTED}`);
}

/**
 * A copy of a value to be logged with every string in it passed through redactSecretText, to a few levels (a log
 * object is shallow); an Error stays an Error of its class, with its message, stack and cause redacted.
 */
export function redactSecretsIn(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecretText(value);
  if (depth > 5 || typeof value !== 'object' || value === null) return value;
  if (value instanceof Error) {
    // Still an Error of its class (pino's serializer prints it as one), its own text redacted.
    const copy = Object.create(
      Object.getPrototypeOf(value) as object,
      Object.getOwnPropertyDescriptors(value),
    ) as Error;
    copy.message = redactSecretText(value.message);
    if (value.stack !== undefined) copy.stack = redactSecretText(value.stack);
    if (value.cause !== undefined) copy.cause = redactSecretsIn(value.cause, depth + 1);
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => redactSecretsIn(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = redactSecretsIn(v, depth + 1);
  return out;
}
