/**
 * A KeystoneUser order as the console's operator view places it: the API validates the body with this schema, and
 * the console's form checks it with the same one before sending. Only TypeBox here, so the browser bundle stays small.
 */
import Type from 'typebox';

/** What a DNS label is (RFC 1123), as Kubernetes names namespaces and these objects. */
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

export const KeystoneUserOrder = Type.Object(
  {
    namespace: Type.String({ pattern: DNS_LABEL, maxLength: 63, description: 'The namespace to place it in.' }),
    name: Type.String({ pattern: DNS_LABEL, maxLength: 63, description: 'The order, and the Keystone user name.' }),
    controlPlane: Type.String({ pattern: DNS_LABEL, maxLength: 63, description: 'The ControlPlane to order from.' }),
  },
  { additionalProperties: false },
);
