/**
 * Application credentials: made by their own user with a project-scoped token, on that project, with a subset of
 * the token's roles; the secret is shown once, on create. As Keystone does, a client may supply the secret itself
 * (so it can persist the secret before the call that makes the credential); otherwise one is generated.
 */
import { randomBytes } from 'node:crypto';
import { isAdmin, type AuthContext } from '../auth.ts';
import { keystoneFault } from '../faults.ts';
import { json, noContent, type EmuRequest } from '../http.ts';
import { arrayAt, booleanAt, isObject, objectAt, stringAt } from '../json.ts';
import { badRequest, forbidden, listBody, notFound, PREFIX, type KeystoneApi } from './api.ts';
import type { KAppCred } from './store.ts';

export function registerApplicationCredentials(api: KeystoneApi): void {
  const { store, ctx, route } = api;
  const base = '/users/{user_id}/application_credentials';
  const param = (req: EmuRequest, name: string) => req.params[name] ?? '';
  const view = (a: KAppCred) => ({
    id: a.id,
    name: a.name,
    description: a.description,
    user_id: a.userId,
    project_id: a.projectId,
    roles: a.roleIds.map((id) => ({ id, name: store.roles.get(id)?.name ?? '', domain_id: null })),
    unrestricted: a.unrestricted,
    expires_at: a.expiresAt === null ? null : new Date(a.expiresAt).toISOString().replace(/Z$/, '000'),
    access_rules: [],
    links: { self: `${ctx.origin()}${PREFIX}/application_credentials/${a.id}` },
  });
  /** The owner, or an admin, may read and delete a user's credentials. */
  const owned = (req: EmuRequest, auth: AuthContext, action: string): string => {
    const userID = param(req, 'user_id');
    if (!store.users.has(userID)) throw notFound('user', userID);
    if (!isAdmin(auth) && auth.userId !== userID) throw forbidden(action);
    return userID;
  };
  const credential = (req: EmuRequest, userID: string): KAppCred => {
    const id = param(req, 'application_credential_id');
    const found = store.appCreds.get(id);
    if (found?.userId !== userID) throw notFound('Application Credential', id);
    return found;
  };

  route('POST', base, (req, auth) => {
    const userID = param(req, 'user_id');
    if (auth.userId !== userID) throw forbidden('create_application_credential');
    if (auth.projectId === undefined)
      throw badRequest('Application credentials must be created with a project-scoped token.');
    const creator =
      auth.applicationCredentialId === undefined ? undefined : store.appCreds.get(auth.applicationCredentialId);
    if (creator && !creator.unrestricted) throw forbidden('create_application_credential');
    const body = objectAt(req.body, 'application_credential');
    const name = stringAt(body, 'name');
    if (!name) throw badRequest("Invalid input for field 'name'.");
    if ([...store.appCreds.values()].some((a) => a.userId === userID && a.name === name)) {
      throw keystoneFault(
        409,
        'Conflict',
        `Conflict occurred attempting to store application_credential - Duplicate entry found with name ${name}.`,
      );
    }
    const tokenRoles = store.effectiveRoleIDs(userID, { kind: 'project', id: auth.projectId });
    const requested = arrayAt(body, 'roles');
    const roleIDs =
      requested === undefined
        ? tokenRoles
        : requested.map((ref) => {
            const id = isObject(ref) ? stringAt(ref, 'id') : undefined;
            const name = isObject(ref) ? stringAt(ref, 'name') : undefined;
            const found =
              id !== undefined ? store.roles.get(id) : name === undefined ? undefined : store.roleByName(name);
            if (!found || !tokenRoles.includes(found.id)) {
              throw badRequest(
                `Invalid application credential: the user has no role ${id ?? name ?? '?'} on the project.`,
              );
            }
            return found.id;
          });
    const expires = stringAt(body, 'expires_at');
    const supplied: unknown = body?.['secret'];
    if (supplied !== undefined && (typeof supplied !== 'string' || supplied === '')) {
      throw badRequest("Invalid input for field 'secret'.");
    }
    const cred: KAppCred = {
      id: ctx.newID().replaceAll('-', ''),
      name,
      description: stringAt(body, 'description') ?? null,
      userId: userID,
      projectId: auth.projectId,
      roleIds: roleIDs,
      secret: typeof supplied === 'string' ? supplied : randomBytes(48).toString('base64url'),
      expiresAt: expires === undefined ? null : Date.parse(expires),
      unrestricted: booleanAt(body, 'unrestricted') ?? false,
    };
    store.appCreds.set(cred.id, cred);
    return json({ application_credential: { ...view(cred), secret: cred.secret } }, 201);
  });
  route('GET', base, (req, auth) => {
    const userID = owned(req, auth, 'list_application_credentials');
    const name = req.query.get('name');
    const items = [...store.appCreds.values()].filter((a) => a.userId === userID && (name === null || a.name === name));
    return json(listBody('application_credentials', items.map(view), `${ctx.origin()}${req.path}`));
  });
  route('GET', `${base}/{application_credential_id}`, (req, auth) => {
    const userID = owned(req, auth, 'get_application_credential');
    return json({ application_credential: view(credential(req, userID)) });
  });
  route('DELETE', `${base}/{application_credential_id}`, (req, auth) => {
    const userID = owned(req, auth, 'delete_application_credential');
    const cred = credential(req, userID);
    store.appCreds.delete(cred.id);
    store.revokeTokens((t) => t.appCredId === cred.id);
    return noContent();
  });
}
