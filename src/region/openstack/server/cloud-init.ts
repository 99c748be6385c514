/**
 * SSH injection, a create-time decision (docs/spec/openstack-provider.md §SSH injection):
 *
 * - the mode: `identityKeypair` sends the identity's Nova key_name; `ca` and `none` omit it. Unset resolves to `ca`
 *   when the server names an SSH certificate authority, else `identityKeypair`.
 * - the CA: when the server names one, a cloud-config part writes its public key to
 *   /etc/ssh/trusted-user-ca-keys.pub and an sshd drop-in trusting it, then reloads sshd; the part is merged with the
 *   user's own user data (as upstream does whenever a CA is named).
 *
 * Rebuild sends neither key_name nor user_data (decide-rebuild.ts), so Nova keeps both from create: updated user
 * data takes effect on replacement, not on rebuild.
 */
import { stringify } from 'yaml';
import type { SSHInjection } from '../../provider/inputs.ts';
import { IDENTITY_KEYPAIR_NAME } from '../names.ts';
import { mergeUserData, type UserDataPart } from './user-data.ts';
import { defined } from '../../../util/defined.ts';

export const TRUSTED_USER_CA_KEYS_PATH = '/etc/ssh/trusted-user-ca-keys.pub';
/** Upstream's in-guest names, kept so guests made by either look the same. */
export const TRUSTED_USER_CA_SSHD_DROP_IN = '/etc/ssh/sshd_config.d/90-unikorn-trusted-user-ca.conf';
const SSH_CA_PART_NAME = 'unikorn-ssh-certificate-authority';
// Distributions name the unit ssh or sshd, and some have no systemd.
const RELOAD_SSHD =
  'systemctl reload sshd || systemctl reload ssh || service ssh reload || service sshd reload || ' +
  'systemctl restart sshd || systemctl restart ssh || service ssh restart || service sshd restart';

/** The cloud-config part that makes sshd trust user certificates signed by the CA. */
export function sshCertificateAuthorityPart(publicKey: string): UserDataPart {
  const config = {
    write_files: [
      { path: TRUSTED_USER_CA_KEYS_PATH, owner: 'root:root', permissions: '0644', content: `${publicKey.trim()}\n` },
      {
        path: TRUSTED_USER_CA_SSHD_DROP_IN,
        owner: 'root:root',
        permissions: '0644',
        content: `TrustedUserCAKeys ${TRUSTED_USER_CA_KEYS_PATH}\n`,
      },
    ],
    runcmd: [['sh', '-c', RELOAD_SSHD]],
  };
  return {
    contentType: 'text/cloud-config',
    fileName: SSH_CA_PART_NAME,
    content: `#cloud-config\n${stringify(config, { lineWidth: 0 })}`,
  };
}

interface SSHCreateInput {
  readonly mode: SSHInjection;
  /** The named SSHCertificateAuthority's public key, when the server names one. */
  readonly certificateAuthorityPublicKey?: string | undefined;
  readonly userData?: Uint8Array | undefined;
}

/** The create request's SSH-related fields: `key_name` (identityKeypair only) and the user data to send. */
type SSHCreateParameters =
  | { readonly ok: true; readonly key_name?: string; readonly userData?: Uint8Array }
  | { readonly ok: false; readonly reason: string };

export function sshCreateParameters(input: SSHCreateInput): SSHCreateParameters {
  const keyName = input.mode === 'identityKeypair' ? { key_name: IDENTITY_KEYPAIR_NAME } : {};
  const ca = input.certificateAuthorityPublicKey;
  if (ca === undefined) {
    return { ok: true, ...keyName, ...defined({ userData: input.userData }) };
  }
  const merged = mergeUserData(input.userData, [sshCertificateAuthorityPart(ca)]);
  return merged.ok ? { ok: true, ...keyName, userData: merged.userData } : merged;
}
