/**
 * The clouds.yaml entries `region configure --clouds-yaml` writes: `<name>` scoped to the managed domain (what
 * the region service's manager client uses) and `<name>-project` scoped to the region's own project. Both by id,
 * so a renamed domain or project never points them elsewhere. Other entries of the file are kept as they were.
 */
import { parse, stringify } from 'yaml';
import type { RegionCredentials } from './credentials.ts';
import { defined } from '../../util/defined.ts';

export function cloudsEntries(name: string, c: RegionCredentials): Record<string, unknown> {
  const base = { auth_url: c.authUrl, user_id: c.userID, password: c.password };
  const common = { ...defined({ region_name: c.regionName }), identity_api_version: '3' };
  return {
    [name]: { auth: { ...base, domain_id: c.domainID }, ...common },
    [`${name}-project`]: { auth: { ...base, project_id: c.projectID }, ...common },
  };
}

/** `existing` (a clouds.yaml's text, or undefined) with the two entries set. */
export function mergeCloudsYaml(existing: string | undefined, name: string, c: RegionCredentials): string {
  const parsed: unknown = existing === undefined ? undefined : parse(existing);
  const doc = isRecord(parsed) ? parsed : {};
  const clouds = isRecord(doc.clouds) ? doc.clouds : {};
  return stringify({ ...doc, clouds: { ...clouds, ...cloudsEntries(name, c) } });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
