/**
 * What `serve` and `up` share, apart from `serve` itself so that `up` (the embedded store) never loads the real
 * Kubernetes client `serve` connects with: the listen-address parser, where the caches watch, the Lease names.
 */
import { InvalidArgumentError } from 'commander';
import type { ResourceType } from '../kube/resource-type.ts';
import { regionType } from '../region/apis/index.ts';

/**
 * The region service's kinds live in its namespace, so its caches watch only there (less to hold, and its RBAC is
 * a Role in that namespace); the Keystone operator's orders can be anywhere, unless `others` names where: then its
 * caches (orders, their ControlPlanes, K-ORC and ESO children, Secrets) list and watch only those namespaces.
 */
export const regionKindsIn =
  (namespace: string, others?: readonly string[]) =>
  (type: ResourceType): readonly string[] | undefined =>
    type.group === regionType.group ? [namespace] : others !== undefined && others.length > 0 ? others : undefined;

/** The Leases `--leader-election` elects through: the controllers', and the server monitor's. */
export const CONTROLLERS_LEASE = 'openregion-controllers';
export const MONITOR_LEASE = 'openregion-server-monitor';

/** The value of an option that takes `HOST:PORT` (the probe and API listen addresses). */
export function hostPort(value: string): { host: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(value);
  const port = Number(match?.[2]);
  if (match?.[1] === undefined || !Number.isInteger(port) || port > 65_535) {
    throw new InvalidArgumentError('expected HOST:PORT, e.g. 0.0.0.0:8080');
  }
  return { host: match[1], port };
}
