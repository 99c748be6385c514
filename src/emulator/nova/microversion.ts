/** Nova's microversion negotiation: both headers, `latest`, and 406 outside 2.1 … the configured maximum. */
import { novaFault } from '../faults.ts';
import type { EmuRequest } from '../http.ts';

export interface Microversion {
  readonly major: number;
  readonly minor: number;
}

const parse = (text: string): Microversion | undefined => {
  const m = /^(\d+)\.(\d+)$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
};

export const atLeast = (v: Microversion, minor: number): boolean => v.major > 2 || (v.major === 2 && v.minor >= minor);

const formatVersion = (v: Microversion): string => `${String(v.major)}.${String(v.minor)}`;

/** The version a request asks for (`OpenStack-API-Version: compute X` wins over the legacy header). */
export function negotiate(req: EmuRequest, max: string): Microversion {
  const maximum = parse(max) ?? { major: 2, minor: 93 };
  const modern = req.headers['openstack-api-version'];
  const legacy = req.headers['x-openstack-nova-api-version'];
  let asked: string | undefined;
  if (typeof modern === 'string') {
    const m = /(?:^|,)\s*compute\s+([^,\s]+)/i.exec(modern);
    asked = m?.[1];
  }
  if (asked === undefined && typeof legacy === 'string') asked = legacy.trim();
  if (asked === undefined) return { major: 2, minor: 1 };
  if (asked.toLowerCase() === 'latest') return maximum;
  const v = parse(asked);
  if (!v) throw novaFault(400, `Invalid API version request: ${asked}`);
  if (v.major !== 2 || v.minor < 1 || v.minor > maximum.minor || maximum.major !== 2) {
    const fault = novaFault(
      406,
      `Version ${asked} is not supported by the API. Minimum is 2.1 and maximum is ${formatVersion(maximum)}.`,
    );
    throw fault;
  }
  return v;
}

export const versionHeaders = (v: Microversion): Record<string, string> => ({
  'OpenStack-API-Version': `compute ${formatVersion(v)}`,
  'X-OpenStack-Nova-API-Version': formatVersion(v),
  Vary: 'OpenStack-API-Version, X-OpenStack-Nova-API-Version',
});
