/**
 * Which quota an OpenStack refusal names, if it is a quota refusal at all. Each service says it its own way: Nova a
 * 403 "Quota exceeded for instances: …" (or "…, too many key pairs."), Neutron a 409 of type OverQuota listing the
 * resources, Cinder a 413 VolumeLimitExceeded / VolumeSizeExceedsAvailableQuota (or a 400 naming the quota), Octavia
 * a 403 "Quota has been met for resources: Load Balancer". The answer is the service's own resource key, for a
 * caller to map onto fixed text; nothing else of the body leaves here.
 */
import { OpenStackHttpError } from './errors.ts';

/** Octavia names its quotas in words; these are its resource keys. */
const OCTAVIA_RESOURCES: Readonly<Record<string, string>> = {
  'load balancer': 'load_balancer',
  listener: 'listener',
  pool: 'pool',
  'health monitor': 'health_monitor',
  member: 'member',
  'l7 policy': 'l7policy',
  'l7 rule': 'l7rule',
};

/** Nova's quota messages that name no key. */
const NOVA_PHRASES: readonly (readonly [RegExp, string])[] = [
  [/Maximum number of metadata items exceeds/i, 'metadata_items'],
  [/Personality file limit exceeded/i, 'injected_files'],
  [/too many key pairs/i, 'key_pairs'],
  [/too many server groups/i, 'server_groups'],
  [/too many servers in group/i, 'server_group_members'],
];

/**
 * The quota key a refusal names (`instances`, `security_group`, `volumes`, `load_balancer`, …), `''` for a quota
 * refusal that names none, or undefined when the error is not a quota refusal.
 */
export function quotaRefusal(error: unknown): string | undefined {
  if (!(error instanceof OpenStackHttpError)) return undefined;
  const message = error.fault.message ?? error.body;
  switch (error.serviceType) {
    case 'compute':
      return error.status === 403 ? novaQuota(message) : undefined;
    case 'network':
      // Only Neutron's OverQuota type is a quota refusal; every other 409 is a conflict.
      if (error.status !== 409 || error.fault.type !== 'OverQuota') return undefined;
      return /\['([a-z_]+)'/.exec(message)?.[1] ?? '';
    case 'block-storage':
      if (error.status !== 413 && !(error.status === 400 && /\bquota\b/i.test(message))) return undefined;
      return (
        (/exceeded for quota '([a-z_]+)'/i.exec(message) ?? /exceeds allowed ([a-z_]+) quota/i.exec(message))?.[1] ?? ''
      );
    case 'load-balancer': {
      if (error.status !== 403) return undefined;
      const named = /Quota has been met for resources?:\s*([A-Za-z0-9 ]+)/i.exec(message)?.[1];
      return named === undefined ? undefined : (OCTAVIA_RESOURCES[named.trim().toLowerCase()] ?? '');
    }
    default:
      return undefined;
  }
}

/** Nova's 403 names the quota ("Quota exceeded for cores: …") or says it in words; other 403s are policy. */
function novaQuota(message: string): string | undefined {
  // OverQuota's own text lists the keys: "Quota exceeded for resources: ['metadata_items']".
  const listed = /Quota exceeded for resources: \['([a-z_]+)'/i.exec(message)?.[1];
  if (listed !== undefined) return listed;
  const named = /Quota exceeded for ([a-z_]+)/i.exec(message)?.[1];
  if (named !== undefined && named !== 'resources') return named;
  for (const [phrase, key] of NOVA_PHRASES) if (phrase.test(message)) return key;
  return /quota exceeded/i.test(message) ? '' : undefined;
}
