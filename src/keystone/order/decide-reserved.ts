/**
 * Names the ControlPlane creates in its admin domain itself. An order for one of them is refused and never
 * provisioned, whether or not that service is enabled, because the plane would later create (or already owns) it.
 */
import { goQuote } from './format.ts';

/** The built-in service accounts; the admin user's name comes from the ControlPlane's admin credential. */
export const BUILTIN_SERVICE_ACCOUNTS: readonly string[] = [
  'glance',
  'placement',
  'barbican',
  'neutron',
  'cinder',
  'nova',
  'neutron-nova',
  'hypervisor-operator',
];

/**
 * A name as Keystone compares it on MariaDB (utf8_general_ci: case- and accent-insensitive, trailing spaces
 * pad-equal), after Keystone strips it on create: "ADMIN", "admín" and " admin " are all "admin".
 */
export function keystoneNameKey(name: string): string {
  return name
    .trim()
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .normalize('NFC')
    .toLowerCase();
}

interface ReservedNameInput {
  readonly userName: string;
  /** spec.korc.adminCredential.userName, default "admin". */
  readonly adminUserName: string;
  /** spec.korc.adminCredential.domainName, default "Default". */
  readonly adminDomainName: string;
}

type ReservedNameDecision =
  | { readonly row: 'ReservedName'; readonly reason: 'ServiceAccountCollision'; readonly message: string }
  | { readonly row: 'FreeName' };

export function decideReservedName(input: ReservedNameInput): ReservedNameDecision {
  const key = keystoneNameKey(input.userName);
  const reserved = [input.adminUserName, ...BUILTIN_SERVICE_ACCOUNTS].find((name) => keystoneNameKey(name) === key);
  if (reserved === undefined) return { row: 'FreeName' };
  return {
    row: 'ReservedName',
    reason: 'ServiceAccountCollision',
    message: `user name ${goQuote(input.userName)} is Keystone user ${goQuote(reserved)}, which the ControlPlane creates in domain ${goQuote(input.adminDomainName)} itself; the order never provisions it`,
  };
}
