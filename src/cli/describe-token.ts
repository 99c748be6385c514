/** A token's holder, scope, roles and catalog as a record for operators; the token's value is deliberately left out. */
import type { Token } from '../openstack/auth.ts';

export function tokenRecord(token: Token) {
  const catalog = [...token.catalog]
    .sort((a, b) => a.type.localeCompare(b.type))
    .flatMap((entry) =>
      entry.endpoints.map((endpoint) => ({
        service: entry.type,
        interface: endpoint.interface,
        region: endpoint.region_id ?? endpoint.region ?? '',
        url: endpoint.url,
      })),
    );
  return {
    user: `${token.user.name} (${token.user.id}) in domain ${token.user.domain.name}`,
    scope: scopeLine(token),
    roles: token.roles.map((r) => r.name).join(', ') || '(none)',
    expires: new Date(token.expiresAt).toISOString(),
    catalog,
  };
}

function scopeLine(token: Token): string {
  if (token.project)
    return `project ${token.project.name} (${token.project.id}) in domain ${token.project.domain.name}`;
  if (token.domain) return `domain ${token.domain.name} (${token.domain.id})`;
  return token.system ? 'system' : 'unscoped';
}
