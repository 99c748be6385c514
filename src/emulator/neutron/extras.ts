/**
 * Tags (the standard-attr-tag extension: replace, add, remove, clear) on every taggable collection, and project
 * quotas (admin sets; a project reads only its own).
 */
import { isAdmin, type AuthContext } from '../auth.ts';
import { json, noContent } from '../http.ts';
import { arrayAt, isObject, objectAt, stringsOf } from '../json.ts';
import { badRequest, fault, notFound, policy, touch, type NeutronApi } from './api.ts';
import { networkVisible } from './networks.ts';
import { QUOTA_DEFAULTS, type QuotaResource, type Standard } from './state.ts';

const TAGGABLE = ['networks', 'subnets', 'routers', 'ports', 'security-groups', 'floatingips'] as const;
type Taggable = (typeof TAGGABLE)[number];

function resourceOf(api: NeutronApi, auth: AuthContext, collection: Taggable, id: string): Standard {
  const { state } = api;
  const found: Standard | undefined = {
    networks: state.networks.get(id),
    subnets: state.subnets.get(id),
    routers: state.routers.get(id),
    ports: state.ports.get(id),
    'security-groups': state.groups.get(id),
    floatingips: state.floatingIps.get(id),
  }[collection];
  const network = collection === 'networks' ? state.networks.get(id) : undefined;
  const seen =
    found && (isAdmin(auth) || found.projectId === auth.projectId || (network && networkVisible(auth, network)));
  if (!found || !seen) throw notFound('TagResourceNotFound', `Resource ${collection} ${id} could not be found.`);
  return found;
}

export function registerTags(api: NeutronApi): void {
  for (const collection of TAGGABLE) {
    const base = `/${collection}/{id}/tags`;
    const target = (req: { params: Readonly<Record<string, string>> }, auth: AuthContext) =>
      resourceOf(api, auth, collection, req.params.id ?? '');
    api.route('GET', base, (req, auth) => json({ tags: [...target(req, auth).tags] }));
    api.route('PUT', base, (req, auth) => {
      const resource = target(req, auth);
      const tags = arrayAt(req.body, 'tags');
      if (tags === undefined || stringsOf(tags).length !== tags.length) throw badRequest('Invalid tags body.');
      resource.tags = [...new Set(stringsOf(tags))];
      touch(api, resource);
      return json({ tags: [...resource.tags] });
    });
    api.route('DELETE', base, (req, auth) => {
      const resource = target(req, auth);
      resource.tags = [];
      touch(api, resource);
      return noContent();
    });
    api.route('GET', `${base}/{tag}`, (req, auth) => {
      if (!target(req, auth).tags.includes(req.params.tag ?? '')) {
        throw notFound('TagNotFound', `Tag ${req.params.tag ?? ''} could not be found.`);
      }
      return noContent();
    });
    api.route('PUT', `${base}/{tag}`, (req, auth) => {
      const resource = target(req, auth);
      const tag = req.params.tag ?? '';
      if (!resource.tags.includes(tag)) {
        resource.tags.push(tag);
        touch(api, resource);
      }
      return noContent(201);
    });
    api.route('DELETE', `${base}/{tag}`, (req, auth) => {
      const resource = target(req, auth);
      const at = resource.tags.indexOf(req.params.tag ?? '');
      if (at < 0) throw notFound('TagNotFound', `Tag ${req.params.tag ?? ''} could not be found.`);
      resource.tags.splice(at, 1);
      touch(api, resource);
      return noContent();
    });
  }
}

export function registerQuotas(api: NeutronApi): void {
  const { state } = api;
  const quotaView = (projectID: string) =>
    Object.fromEntries(Object.keys(QUOTA_DEFAULTS).map((k) => [k, state.quota(projectID, k as QuotaResource)]));
  api.route('GET', '/quotas/{project_id}', (req, auth) => {
    const projectID = req.params.project_id ?? '';
    if (!isAdmin(auth) && projectID !== auth.projectId) throw policy('rule:get_quota');
    return json({ quota: quotaView(projectID) });
  });
  api.route('PUT', '/quotas/{project_id}', (req, auth) => {
    if (!isAdmin(auth)) throw policy('rule:update_quota');
    const projectID = req.params.project_id ?? '';
    const body = objectAt(req.body, 'quota');
    if (!isObject(body)) throw fault(400, 'BadRequest', 'Bad quota request: no quota in the body.');
    const current = { ...state.quotas.get(projectID) };
    for (const [key, value] of Object.entries(body)) {
      if (!(key in QUOTA_DEFAULTS)) throw badRequest(`Unrecognized attribute(s) '${key}'`);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -1) {
        throw badRequest(`'${String(value)}' is not a valid quota for ${key}.`);
      }
      current[key as QuotaResource] = value;
    }
    state.quotas.set(projectID, current);
    return json({ quota: quotaView(projectID) });
  });
  api.route('DELETE', '/quotas/{project_id}', (req, auth) => {
    if (!isAdmin(auth)) throw policy('rule:delete_quota');
    state.quotas.delete(req.params.project_id ?? '');
    return noContent();
  });
}
