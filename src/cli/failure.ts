/**
 * How the `openregion` command reports a failure that reaches it: one line on stderr, `openregion: <message>`, no
 * stack trace; `--debug` prints the stack and every cause instead. Programming errors (a TypeError and the like)
 * say so, since their message alone means little to the person who ran the command.
 */

const BUG_NAMES = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'AssertionError']);

/** The text to write to stderr for `error`: one line, or with `debug` the stack and the cause chain. */
export function failureReport(error: unknown, debug: boolean): string {
  if (debug) return `openregion: ${stackOf(error)}\n`;
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').trim();
  const bug = error instanceof Error && BUG_NAMES.has(error.name);
  return bug
    ? `openregion: unexpected ${error.name}: ${message} (a bug; --debug shows where)\n`
    : `openregion: ${message}\n`;
}

function stackOf(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = error; e !== undefined && !seen.has(e); e = e instanceof Error ? e.cause : undefined) {
    seen.add(e);
    parts.push(e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : JSON.stringify(e));
  }
  return parts.join('\ncaused by: ');
}
