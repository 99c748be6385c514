/**
 * The bearer token the console calls the API with. `openregion up` prints a sign-in link that carries its development
 * token in the URL fragment (never sent to a server, so never in an access log); the console moves it into this tab's
 * session storage and takes it out of the address bar. Anyone else pastes a token into the sign-in form.
 */
const KEY = 'openregion.token';

export interface Claims {
  readonly subject: string;
  readonly organizationIDs: readonly string[];
  readonly projectIDs: readonly string[];
  /** Display names of the projects by id, where the token names them (`projectNames`); else the id is shown. */
  readonly projectNames: Readonly<Record<string, string>>;
  /** The operator claim: the console shows its operator view. */
  readonly operator: boolean;
}

/** Takes a token out of `#token=…` if there is one, keeps it for this tab, and answers the one kept. */
export function signInFromFragment(): string | undefined {
  const match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (match?.[1] !== undefined) {
    sessionStorage.setItem(KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function keepToken(token: string): void {
  sessionStorage.setItem(KEY, token.trim());
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
}

const names = (v: unknown): Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : {};

/** What the token says about its holder, read to choose defaults; the API checks it, the console only reads it. */
export function claimsOf(token: string): Claims | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const claims = JSON.parse(json) as {
      sub?: unknown;
      organizationIds?: unknown;
      projectIds?: unknown;
      projectNames?: unknown;
      operator?: unknown;
    };
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    return {
      subject: typeof claims.sub === 'string' ? claims.sub : '',
      organizationIDs: strings(claims.organizationIds),
      projectIDs: strings(claims.projectIds),
      projectNames: names(claims.projectNames),
      operator: claims.operator === true,
    };
  } catch {
    return undefined;
  }
}
