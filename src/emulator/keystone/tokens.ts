/**
 * `POST /v3/auth/tokens`: the password, token and application_credential methods, the project, domain and system
 * scopes (or none), and the token body Keystone answers with. Refusals are Keystone's: 401 for a bad credential
 * or a scope without roles, 404 for an application credential that does not exist.
 */
import { randomBytes } from 'node:crypto';
import { keystoneFault } from '../faults.ts';
import type { EmuFault } from '../http.ts';
import { arrayAt, isoMicros, objectAt, stringAt, type JsonObject } from '../json.ts';
import { sameName, type KeystoneStore, type KToken, type KUser, type Target, type TokenScope } from './store.ts';

export const unauthorized = (message = 'The request you have made requires authentication.'): EmuFault =>
  keystoneFault(401, 'Unauthorized', message);

interface IssueOptions {
  readonly now: number;
  readonly ttlMs: number;
}

/** Validates an authentication request and records the token it yields. */
export function issueToken(store: KeystoneStore, body: unknown, options: IssueOptions): KToken {
  const identity = objectAt(objectAt(body, 'auth'), 'identity');
  const methods = arrayAt(identity, 'methods') ?? [];
  const method: unknown = methods[0];
  let userID: string;
  let appCred: ReturnType<typeof applicationCredential> | undefined;
  let parent: KToken | undefined;
  if (method === 'password') {
    userID = passwordUser(store, objectAt(objectAt(identity, 'password'), 'user')).id;
  } else if (method === 'token') {
    const value = stringAt(objectAt(identity, 'token'), 'id') ?? '';
    if (!store.authContext(value, options.now)) throw unauthorized();
    parent = store.tokens.get(value);
    if (parent?.appCredId !== undefined)
      throw keystoneFault(403, 'Forbidden', 'Cannot rescope an application credential token.');
    userID = parent?.userId ?? '';
  } else if (method === 'application_credential') {
    appCred = applicationCredential(store, objectAt(identity, 'application_credential'), options.now);
    userID = appCred.userId;
  } else {
    throw unauthorized(`Attempted to authenticate with an unsupported method.`);
  }
  const user = store.users.get(userID);
  if (!user?.enabled) throw unauthorized();

  let scope: TokenScope;
  let roleIDs: string[];
  if (appCred) {
    scope = { kind: 'project', projectId: appCred.projectId };
    const held = new Set(store.effectiveRoleIDs(userID, { kind: 'project', id: appCred.projectId }));
    roleIDs = appCred.roleIds.filter((id) => held.has(id));
  } else {
    scope = requestedScope(store, objectAt(objectAt(body, 'auth'), 'scope'));
    roleIDs = scope.kind === 'unscoped' ? [] : store.effectiveRoleIDs(userID, targetOf(scope));
  }
  if (scope.kind !== 'unscoped' && roleIDs.length === 0) throw unauthorized();

  const token: KToken = {
    value: `gAAAAA${randomBytes(96).toString('base64url')}`,
    userId: userID,
    methods: parent ? parent.methods : [method],
    scope,
    roleIds: roleIDs,
    issuedAt: options.now,
    expiresAt: parent ? parent.expiresAt : options.now + options.ttlMs,
    appCredId: appCred?.id,
    auditId: randomBytes(16).toString('base64url').slice(0, 22),
  };
  store.tokens.set(token.value, token);
  return token;
}

function targetOf(scope: Exclude<TokenScope, { kind: 'unscoped' }>): Target {
  switch (scope.kind) {
    case 'project':
      return { kind: 'project', id: scope.projectId };
    case 'domain':
      return { kind: 'domain', id: scope.domainId };
    case 'system':
      return { kind: 'system' };
  }
}

function domainRef(store: KeystoneStore, ref: JsonObject | undefined): string | undefined {
  const id = stringAt(ref, 'id');
  if (id !== undefined) return store.domains.has(id) ? id : undefined;
  const name = stringAt(ref, 'name');
  return name === undefined ? undefined : store.domainByName(name)?.id;
}

function userRef(store: KeystoneStore, ref: JsonObject | undefined): KUser | undefined {
  const id = stringAt(ref, 'id');
  if (id !== undefined) return store.users.get(id);
  const name = stringAt(ref, 'name');
  const domainID = domainRef(store, objectAt(ref, 'domain'));
  if (name === undefined || domainID === undefined) return undefined;
  return [...store.users.values()].find((u) => u.domainId === domainID && sameName(u.name, name));
}

function passwordUser(store: KeystoneStore, ref: JsonObject | undefined): KUser {
  const user = userRef(store, ref);
  const password = stringAt(ref, 'password');
  if (!user || user.password === undefined || user.password !== password) throw unauthorized();
  return user;
}

function applicationCredential(store: KeystoneStore, ref: JsonObject | undefined, now: number) {
  const id = stringAt(ref, 'id');
  const name = stringAt(ref, 'name');
  const user = id === undefined ? userRef(store, objectAt(ref, 'user')) : undefined;
  const found =
    id !== undefined
      ? store.appCreds.get(id)
      : [...store.appCreds.values()].find((a) => a.userId === user?.id && a.name === name);
  if (!found) throw keystoneFault(404, 'Not Found', `Could not find Application Credential: ${id ?? name ?? ''}.`);
  if (found.secret !== stringAt(ref, 'secret')) throw unauthorized();
  if (found.expiresAt !== null && found.expiresAt <= now) throw unauthorized();
  return found;
}

function requestedScope(store: KeystoneStore, scope: JsonObject | undefined): TokenScope {
  if (scope === undefined) return { kind: 'unscoped' };
  const project = objectAt(scope, 'project');
  if (project) {
    const id = stringAt(project, 'id');
    const name = stringAt(project, 'name');
    const domainID = domainRef(store, objectAt(project, 'domain'));
    const found =
      id !== undefined
        ? store.projects.get(id)
        : [...store.projects.values()].find(
            (p) => p.domainId === domainID && name !== undefined && sameName(p.name, name),
          );
    if (!found?.enabled || !store.domains.get(found.domainId)?.enabled) throw unauthorized();
    return { kind: 'project', projectId: found.id };
  }
  const domain = objectAt(scope, 'domain');
  if (domain) {
    const domainID = domainRef(store, domain);
    if (domainID === undefined || !store.domains.get(domainID)?.enabled) throw unauthorized();
    return { kind: 'domain', domainId: domainID };
  }
  if (objectAt(scope, 'system')) return { kind: 'system' };
  throw keystoneFault(400, 'Bad Request', 'Invalid scope.');
}

interface CatalogSource {
  /** Catalog entries as Keystone shows them for a token scoped to `projectId` (when any). */
  catalog(projectID: string | undefined): unknown[];
}

/** The body of a token answer, as Keystone shows it on issue and on validation. */
export function tokenBody(store: KeystoneStore, token: KToken, source: CatalogSource): JsonObject {
  const user = store.users.get(token.userId);
  const userDomain = user ? store.domains.get(user.domainId) : undefined;
  const body: JsonObject = {
    methods: token.methods,
    user: {
      domain: { id: userDomain?.id ?? '', name: userDomain?.name ?? '' },
      id: token.userId,
      name: user?.name ?? '',
      password_expires_at: null,
    },
    audit_ids: [token.auditId],
    expires_at: isoMicros(token.expiresAt),
    issued_at: isoMicros(token.issuedAt),
  };
  const { scope } = token;
  if (scope.kind === 'project') {
    const project = store.projects.get(scope.projectId);
    const domain = project ? store.domains.get(project.domainId) : undefined;
    body.project = {
      domain: { id: domain?.id ?? '', name: domain?.name ?? '' },
      id: scope.projectId,
      name: project?.name ?? '',
    };
    body.is_domain = false;
  } else if (scope.kind === 'domain') {
    body.domain = { id: scope.domainId, name: store.domains.get(scope.domainId)?.name ?? '' };
  } else if (scope.kind === 'system') {
    body.system = { all: true };
  }
  if (scope.kind !== 'unscoped') {
    body.roles = token.roleIds.map((id) => ({ id, name: store.roles.get(id)?.name ?? '' }));
    body.catalog = source.catalog(scope.kind === 'project' ? scope.projectId : undefined);
  }
  if (token.appCredId !== undefined) {
    const cred = store.appCreds.get(token.appCredId);
    body.application_credential = { id: token.appCredId, name: cred?.name ?? '', restricted: !cred?.unrestricted };
  }
  return body;
}
