/**
 * A region set up on a kube-apiserver as an operator sets one up, shared by the suites and the bench that run
 * `serve` on one (operator-walk, failover, bench/kube-region.ts): `region configure` against the cloud, then
 * `region register --create-secret` into a namespace of its own; and the forced `region deregister` that undoes it.
 */

/** Runs an `openregion` command (from the sources or the built package); its output, or a failure with it. */
export type Openregion = (args: readonly string[], env?: Record<string, string>) => Promise<string>;

interface RegionSetup {
  /** The prefix `region configure` names its Keystone domain and accounts with. */
  readonly prefix: string;
  readonly providerEnv: string;
  readonly osCloud: string;
  /** The environment `region configure` reads the cloud from (OS_CLIENT_CONFIG_FILE). */
  readonly env?: Record<string, string>;
  /** The Region's name. */
  readonly name: string;
  readonly namespace: string;
  readonly kubeconfig: string;
  readonly organization: string;
}

interface RegisteredRegion {
  /** What `region configure` and `region register` printed. */
  readonly configured: string;
  readonly registered: string;
  readonly regionId: string;
}

export async function configureAndRegister(openregion: Openregion, setup: RegionSetup): Promise<RegisteredRegion> {
  const configured = await openregion(
    ['region', 'configure', '--prefix', setup.prefix, '--provider-env', setup.providerEnv, '--os-cloud', setup.osCloud],
    setup.env ?? {},
  );
  const registered = await openregion([
    'region',
    'register',
    '--provider-env',
    setup.providerEnv,
    '--name',
    setup.name,
    '--namespace',
    setup.namespace,
    '--kubeconfig',
    setup.kubeconfig,
    '--create-secret',
    '--organization-id',
    setup.organization,
  ]);
  const regionId = /region ([0-9a-f-]{36}) \(/.exec(registered)?.[1];
  if (regionId === undefined) throw new Error(`region register printed no region id: ${registered}`);
  return { configured, registered, regionId };
}

/** Deregisters the region by id, whatever still uses it (`--force`): a suite's or a bench's clean-up. */
export function forceDeregister(
  openregion: Openregion,
  region: { readonly regionId: string; readonly namespace: string; readonly kubeconfig: string },
): Promise<string> {
  return openregion([
    'region',
    'deregister',
    '--region-id',
    region.regionId,
    '--namespace',
    region.namespace,
    '--kubeconfig',
    region.kubeconfig,
    '--force',
  ]);
}
