/** What every view needs: the API bound to the signed-in token, and the tenancy the views act in. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.ts';

export interface Scope {
  readonly api: Api;
  /** The bearer token, for the watch stream (which reads its answer as it arrives, not as one JSON document). */
  readonly token: string;
  readonly organizationID: string;
  readonly projectID: string | undefined;
  readonly regionID: string | undefined;
}

export const ScopeContext = createContext<Scope | undefined>(undefined);

export function useScope(): Scope {
  const scope = useContext(ScopeContext);
  if (scope === undefined) throw new Error('a view rendered outside the signed-in console');
  return scope;
}
