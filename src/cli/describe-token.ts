/** A token's holder, scope, roles and catalog as text for operators; the token's value is deliberately not shown. */
import type { Token } from '../openstack/auth.ts';

export function describeToken(token: Token): string {
  const lines = [
    `user:    ${token.user.name} (${token.user.id}) in domain ${token.user.domain.name}`,
    `scope:   ${scopeLine(token)}`,
    `roles:   ${token.roles.map((r) => r.name).join(', ') || '(none)'}`,
    `expires: ${new Date(token.expiresAt).toISOString()}`,
    'catalog:',
  ];
  for (const entry of [...token.catalog].sort((a, b) => a.type.localeCompare(b.type))) {
    for (const endpoint of entry.endpoints) {
      lines.push(
        `  ${entry.type.padEnd(16)} ${endpoint.interface.padEnd(8)} ${(endpoint.region_id ?? endpoint.region ?? '').padEnd(10)} ${endpoint.url}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function scopeLine(token: Token): string {
  if (token.project)
    return `project ${token.project.name} (${token.project.id}) in domain ${token.project.domain.name}`;
  if (token.domain) return `domain ${token.domain.name} (${token.domain.id})`;
  return token.system ? 'system' : 'unscoped';
}
