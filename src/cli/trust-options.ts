/**
 * The REST API's trust-boundary flags (docs/adr/0036-trust-boundaries.md): where a tenant's image URL may
 * lead beyond the public internet (`--image-source-allow`, `serve` and `up`), and the URL the API is reached at
 * (`--public-url`, `serve`: it names itself with it in a 401's challenge and its RFC 9728 metadata).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Logger } from 'pino';
import { imageSourceCheck } from '../region/http/image-source.ts';
import type { ImageSourceCheck } from '../region/http/context.ts';
import { parseAllowed } from '../util/outbound.ts';

export interface TrustFlags {
  imageSourceAllow?: string[];
  publicUrl?: string;
}

function allowed(value: string, previous: string[] | undefined): string[] {
  try {
    parseAllowed(value);
  } catch {
    throw new InvalidArgumentError(`expected an address or a CIDR prefix (10.0.0.0/8, fd00::/8), not ${value}`);
  }
  return [...(previous ?? []), value.trim()];
}

function publicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`expected a URL such as https://region.example.com, not ${value}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw new InvalidArgumentError(`expected an http(s) URL without credentials, not ${value}`);
  }
  return url.href.replace(/\/+$/, '');
}

export function withImageSourceOption(command: Command): Command {
  return command.option(
    '--image-source-allow <cidr>',
    'a prefix an image URL may reach although it is not public (a private mirror); repeatable. ' +
      'Loopback, link-local, private, CGNAT, multicast and reserved addresses are refused otherwise',
    allowed,
  );
}

export function withPublicUrlOption(command: Command): Command {
  return command.option(
    '--public-url <url>',
    'the URL clients reach the API at, named in 401 challenges and the RFC 9728 metadata (default: the bound address)',
    publicUrl,
  );
}

/** The image URL check the flags ask for: the public internet, plus what the operator allowed. */
export function imageSourceOf(flags: TrustFlags, log: Logger): ImageSourceCheck {
  return imageSourceCheck({
    policy: { allow: flags.imageSourceAllow ?? [] },
    log: log.child({ component: 'image-source' }),
  });
}
