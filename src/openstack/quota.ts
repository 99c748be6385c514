/**
 * Which quota an OpenStack refusal names, if it is a quota refusal at all. Each service says it its own way: Nova a
 * 403 "Quota exceeded for instances: …" (or "…, too many key pairs."), Neutron a 409 of type OverQuota listing the
 * resources, Cinder a 413 VolumeLimitExceeded / VolumeSizeExceedsAvailableQuota (or a 400 naming the quota), Octavia
 * a 403 "Quota has been met for resources: Load Balancer". The answer is the service's own resource key, for a
 * caller to map onto fixed text; nothing else of the body leaves here.
 */
import { OpenStackHttpError } from './errors.ts';

const QUOTA_STATUSES: ReadonlySet<number> = new Set([400, 403, 409, 413]);

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
  [/too many key pairs/i, 'key_pairs'],
  [/too many server groups/i, 'server_groups'],
  [/too many servers in group/i, 'server_group_members'],
];

/**
 * The quota key a refusal names (`instances`, `security_group`, `volumes`, `load_balancer`, …), `''` for a quota
 * refusal that names none, or undefined when the error is not a quota refusal.
 */
export function quotaRefusal(error: unknown): string | undefined {
  if (!(error instanceof OpenStackHttpError) || !QUOTA_STATUSES.has(error.status)) return undefined;
  const message = error.fault.message ?? error.body;
  if (error.status === 409) {
    // Neutron: only its OverQuota type is a quota refusal; every other 409 is a conflict.
    if (error.fault.type !== 'OverQuota') return undefined;
    return /\['([a-z_]+)'/.exec(message)?.[1] ?? '';
  }
  const octavia = /Quota has been met for resources?:\s*([A-Za-z0-9 ]+)/i.exec(message);
  if (octavia?.[1] !== undefined) return OCTAVIA_RESOURCES[octavia[1].trim().toLowerCase()] ?? '';
  const nova = /Quota exceeded for ([a-z_]+)/i.exec(message);
  if (nova?.[1] !== undefined && nova[1] !== 'resources') return nova[1];
  for (const [phrase, key] of NOVA_PHRASES) if (phrase.test(message)) return key;
  const cinderLimit =
    /exceeded for quota '([a-z_]+)'/i.exec(message) ?? /exceeds allowed ([a-z_]+) quota/i.exec(message);
  if (cinderLimit?.[1] !== undefined) return cinderLimit[1];
  if (error.status === 413 || /\bquota\b/i.test(message)) return '';
  return undefined;
}
