/**
 * Public image signatures (docs/spec/upstream-region.md §Image properties (Glance)): with `image.selector.signingKey`
 * (a PEM ECDSA public key, base64 in the CRD), a public image with no organization must carry `unikorn:digest`: the
 * base64 ASN.1 (DER) ECDSA signature over the SHA-256 of the image's id. A key that does not parse verifies nothing, so
 * every such image is left out (fail closed) rather than shown unverified.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export type SigningKey =
  { readonly kind: 'key'; readonly key: KeyObject } | { readonly kind: 'invalid'; readonly why: string };

/** Parses the CRD's base64 PEM; undefined when the Region names no key. */
export function signingKeyOf(base64Pem: string | undefined): SigningKey | undefined {
  if (base64Pem === undefined || base64Pem === '') return undefined;
  try {
    const key = createPublicKey(Buffer.from(base64Pem, 'base64').toString('utf8'));
    if (key.asymmetricKeyType !== 'ec')
      return { kind: 'invalid', why: `an ${String(key.asymmetricKeyType)} key, not ECDSA` };
    return { kind: 'key', key };
  } catch (error) {
    return { kind: 'invalid', why: error instanceof Error ? error.message : String(error) };
  }
}

export function verifyImageSignature(key: SigningKey, imageID: string, digest: string | undefined): boolean {
  if (key.kind === 'invalid' || digest === undefined || digest === '') return false;
  try {
    return verify(
      'sha256',
      Buffer.from(imageID, 'utf8'),
      { key: key.key, dsaEncoding: 'der' },
      Buffer.from(digest, 'base64'),
    );
  } catch {
    return false;
  }
}
