/**
 * Credentials never reach logs or error messages. Everything the client prints passes through here: error bodies,
 * diagnostics, and any value a caller logs on its behalf.
 */
import { REDACTED, redactSecretText } from '../util/secret-text.ts';

export { REDACTED };

const SECRET_KEY =
  /^(password|original_password|adminpass|admin_pass|secret|application_credential_secret|token|auth_token|x-auth-token|x-subject-token|x-service-token)$/i;

// A JSON member whose key names a secret and whose value is a string.
const SECRET_MEMBER =
  /("(?:password|original_password|adminPass|admin_pass|secret|application_credential_secret|auth_token|x-auth-token|x-subject-token)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;
// Keystone's token auth method: {"token": {"id": "<the token>"}}.
const TOKEN_ID_MEMBER = /("token"\s*:\s*\{\s*"id"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;
// Fernet tokens (gAAAAA…), which also travel outside JSON, in headers and URLs.
const FERNET = /gAAAAA[A-Za-z0-9_=-]{20,}/g;
// Header lines in dumps: "X-Auth-Token: …", and "Authorization: Bearer …", whose credential follows the scheme.
const TOKEN_HEADER =
  /((?:x-auth-token|x-subject-token|x-service-token|authorization)\s*[:=]\s*(?:(?:bearer|basic)\s+)?)[^\s,;"]+/gi;
// A JSON string literal; one holding escaped quotes may be JSON inside JSON, as in Ironic's `error_message`.
const STRING_LITERAL = /"(?:[^"\\]|\\.)*"/g;

export function redactText(text: string): string {
  // Then what any text may hold (a URL's credentials, key=value secrets): util/secret-text.ts.
  return redactSecretText(
    text
      .replace(SECRET_MEMBER, `$1"${REDACTED}"`)
      .replace(TOKEN_ID_MEMBER, `$1"${REDACTED}"`)
      .replace(TOKEN_HEADER, `$1${REDACTED}`)
      .replace(FERNET, REDACTED)
      .replace(STRING_LITERAL, redactEmbedded),
  );
}

/**
 * A secret in JSON that is itself a string inside JSON (`"{\"password\": \"…\"}"`) escapes the patterns above, so
 * such literals are decoded, redacted (to any depth, by recursion) and encoded again.
 */
function redactEmbedded(literal: string): string {
  if (!literal.includes('\\"')) return literal;
  let decoded: unknown;
  try {
    decoded = JSON.parse(literal);
  } catch {
    return literal;
  }
  if (typeof decoded !== 'string') return literal;
  const redacted = redactText(decoded);
  return redacted === decoded ? literal : JSON.stringify(redacted);
}

/** A deep copy of `value` with every secret-named member masked; safe to hand to a logger. */
export function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (SECRET_KEY.test(key) && (typeof v === 'string' || key.toLowerCase() !== 'token')) out[key] = REDACTED;
    else if (key.toLowerCase() === 'token' && isRecord(v) && 'id' in v) out[key] = { ...v, id: REDACTED };
    else out[key] = redactValue(v);
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
