/**
 * The region's provider credentials: what `region configure` produces and `region register` consumes. The four
 * the Region's Secret carries (domain, project, user id, password) plus where and under which names they live.
 */
export interface RegionCredentials {
  /** The Keystone v3 URL the credentials authenticate against. */
  readonly authUrl: string;
  readonly regionName: string | undefined;
  readonly domainId: string;
  readonly domainName: string;
  readonly projectId: string;
  readonly projectName: string;
  readonly userId: string;
  readonly userName: string;
  readonly password: string;
}

/** The Region credentials Secret's keys, exactly (reference: region-registration.md, step 2). */
export const SECRET_KEYS = ['domain-id', 'project-id', 'user-id', 'password'] as const;

export function secretData(credentials: RegionCredentials): Record<(typeof SECRET_KEYS)[number], string> {
  return {
    'domain-id': credentials.domainId,
    'project-id': credentials.projectId,
    'user-id': credentials.userId,
    password: credentials.password,
  };
}
