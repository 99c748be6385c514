/**
 * K-ORC failure classes. Against an External-mode ControlPlane a wait on K-ORC is replaced by the class of the
 * failure K-ORC reports, since nothing the operator runs will fix an external Keystone; the same classifier tells a
 * latched transport error (EndpointUnreachable) apart from a real configuration error.
 */
export type KorcFailureClass =
  | 'CatalogEndpointMismatch'
  | 'CredentialDrift'
  | 'TLSVerificationFailed'
  | 'AuthenticationFailed'
  | 'EndpointUnreachable';

/** Substrings of K-ORC's condition message, tried in order (upstream external_mode.go). */
const CLASSES: readonly (readonly [KorcFailureClass, readonly string[]])[] = [
  ['CatalogEndpointMismatch', ['No suitable endpoint could be found in the service catalog']],
  ['CredentialDrift', ['identity:create_application_credential']],
  ['TLSVerificationFailed', ['x509']],
  ['AuthenticationFailed', ['401', 'Unauthorized']],
  ['EndpointUnreachable', ['no such host', 'connection refused', 'dial tcp', 'i/o timeout']],
];

export function classifyKorcFailure(message: string | undefined): KorcFailureClass | undefined {
  if (message === undefined || message === '') return undefined;
  return CLASSES.find(([, needles]) => needles.some((needle) => message.includes(needle)))?.[0];
}

const WHAT: Readonly<Record<KorcFailureClass, string>> = {
  CatalogEndpointMismatch: "the external Keystone's catalog has no endpoint of the configured interface",
  CredentialDrift: 'the admin credential no longer holds the rights K-ORC needs',
  TLSVerificationFailed: "the external Keystone's certificate does not verify",
  AuthenticationFailed: 'the external Keystone refuses the admin credential',
  EndpointUnreachable: 'the external Keystone cannot be reached',
};

/** The condition message for a classified failure; K-ORC's own text follows, already truncated by the caller. */
export function externalFailureMessage(failure: KorcFailureClass, korcMessage: string): string {
  return `${WHAT[failure]}; K-ORC reports: ${korcMessage}`;
}
