/**
 * The region's provider credentials: what `region configure` produces and `region register` consumes. The four
 * the Region's Secret carries (domain, project, user id, password) plus where and under which names they live.
 */
import { CREDENTIAL_KEYS } from '../openstack/region-config.ts';

export interface RegionCredentials {
  /** The Keystone v3 URL the credentials authenticate against. */
  readonly authUrl: string;
  readonly regionName: string | undefined;
  readonly domainID: string;
  readonly domainName: string;
  readonly projectID: string;
  readonly projectName: string;
  readonly userID: string;
  readonly userName: string;
  readonly password: string;
}

/** The Region credentials Secret's keys, exactly: the ones the provider reads (reference: region-registration.md). */
export const SECRET_KEYS = Object.values(CREDENTIAL_KEYS);

export function secretData(credentials: RegionCredentials): Record<(typeof SECRET_KEYS)[number], string> {
  return {
    [CREDENTIAL_KEYS.domainID]: credentials.domainID,
    [CREDENTIAL_KEYS.projectID]: credentials.projectID,
    [CREDENTIAL_KEYS.userID]: credentials.userID,
    [CREDENTIAL_KEYS.password]: credentials.password,
  };
}
