/** SSHCertificateAuthority: an OpenSSH CA servers trust when sshInjection is `ca`. No status. */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import { commonSpec, envelope, regionResourceType } from './shared.ts';

export const sshCertificateAuthorityType = regionResourceType<SSHCertificateAuthority>(
  'SSHCertificateAuthority',
  'sshcertificateauthorities',
);

/** An OpenSSH public key line: key type, base64 body, optional comment. */
const OPENSSH_PUBLIC_KEY_PATTERN =
  '^(ssh-[a-z0-9-]+|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9-@.]+) [A-Za-z0-9+/]+={0,3}( .*)?$';

const SSHCertificateAuthoritySpec = Type.Object({
  ...commonSpec,
  publicKey: Type.String({ pattern: OPENSSH_PUBLIC_KEY_PATTERN, description: 'The CA public key, OpenSSH format.' }),
});
type SSHCertificateAuthoritySpec = Type.Static<typeof SSHCertificateAuthoritySpec>;

export const SSHCertificateAuthoritySchema = envelope('An SSH certificate authority.', {
  spec: SSHCertificateAuthoritySpec,
});

export type SSHCertificateAuthority = Resource<SSHCertificateAuthoritySpec, never>;
