/**
 * `openregion token`: a development bearer token for `serve --api`, signed with a local key the way `up` signs
 * its own (region/http/dev-token.ts), carrying the claims the API reads (sub, organizationIds, projectIds) and
 * always exp, iss and aud, which serve checks. The key
 * pair is kept in --key (made on first use, 0600); --public-key writes its public half as the PEM `serve
 * --public-key-file` verifies with. Never for production: there, an identity provider issues tokens (--jwks-url).
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';
import {
  DEV_ALGORITHM,
  DEV_AUDIENCE,
  DEV_ISSUER,
  generateDevKeyPair,
  signDevToken,
  type DevKeyPair,
} from '../region/http/dev-token.ts';
import { systemClock } from '../util/clock.ts';
import { list } from './region.ts';
import type { Out } from './target.ts';
import { readKeyPair, writePrivate } from './up/files.ts';
import { defined } from '../util/defined.ts';

interface TokenOptions {
  key: string;
  publicKey?: string;
  subject: string;
  organizationId?: string[];
  projectId?: string[];
  lifetime?: number;
  issuer?: string;
  audience?: string;
  operator?: boolean;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A commander parser for a lifetime: a whole number of s, m, h or d (30m, 12h, 7d), in seconds. */
export function lifetimeSeconds(value: string): number {
  const match = /^(\d+)([smhd])$/.exec(value);
  const seconds = match === null ? 0 : Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? 0);
  if (seconds < 1) throw new InvalidArgumentError(`expected a lifetime such as 30m, 12h or 7d, not ${value}`);
  return seconds;
}

/** The public half of a development key pair as a PEM (SPKI), what `serve --public-key-file` reads. */
function publicKeyPem(keys: DevKeyPair): string {
  return createPublicKey({ key: keys.publicJwk as JsonWebKey, format: 'jwk' })
    .export({ type: 'spki', format: 'pem' })
    .toString();
}

async function mintToken(options: TokenOptions, out: Out): Promise<void> {
  const organizations = options.organizationId ?? [];
  if (organizations.length === 0) {
    throw new InvalidArgumentError('--organization-id is required: the API grants nothing without an organization');
  }
  const keys = readKeyPair(options.key) ?? (await generateDevKeyPair());
  writePrivate(options.key, JSON.stringify(keys));
  if (options.publicKey !== undefined) writePrivate(options.publicKey, publicKeyPem(keys));
  const token = await signDevToken(
    keys,
    {
      subject: options.subject,
      organizationIDs: organizations,
      ...(options.projectId === undefined || options.projectId.length === 0 ? {} : { projectIDs: options.projectId }),
      ...defined({ lifetimeSeconds: options.lifetime, issuer: options.issuer, audience: options.audience }),
      ...(options.operator === true ? { operator: true as const } : {}),
    },
    systemClock,
  );
  out.write(`${token}\n`);
}

export function tokenCommand(out: Out = process.stdout): Command {
  return new Command('token')
    .description(
      `Mint a development bearer token for serve --api (${DEV_ALGORITHM}, signed with a local key; never for production)`,
    )
    .requiredOption('--key <file>', 'the signing key pair (JSON, 0600); made when missing, kept otherwise')
    .option('--public-key <pem>', 'also write the public key here, for serve --public-key-file')
    .option('--subject <sub>', 'who the token names (the creator of what it makes)', 'developer')
    .option('--organization-id <id>', 'an organization the token may act in (repeatable, required)', list)
    .option('--project-id <id>', 'only these projects (repeatable; default: every project of the organizations)', list)
    .option('--lifetime <duration>', 'how long it is valid: 30m, 12h, 7d (default 30 days)', lifetimeSeconds)
    .option('--issuer <iss>', `the iss claim (default ${DEV_ISSUER}; serve --issuer must match)`)
    .option('--audience <aud>', `the aud claim (default ${DEV_AUDIENCE}; serve --audience must match)`)
    .option('--operator', "the operator claim: the console's operator views (controllers, KeystoneUser orders)")
    .action((options: TokenOptions) => mintToken(options, out));
}
