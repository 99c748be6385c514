/**
 * Test support: one emulator with an identity (its own user) and a realised network, and the loops the load
 * balancer tests share — passes until done (settling Octavia between them, moving the VIP to a real port when a
 * public IP is asked for), deletes until gone, and what Octavia holds, read as admin.
 */
import assert from 'node:assert/strict';
import * as octavia from '../../../openstack/loadbalancer.ts';
import * as neutron from '../../../openstack/network.ts';
import { TransientError } from '../../provider/errors.ts';
import type { LoadBalancerInput, LoadBalancerRealisation, NetworkInput } from '../../provider/inputs.ts';
import type { Outcome } from '../../provider/outcome.ts';
import { loadBalancerName } from '../names.ts';
import { createLoadBalancer, deleteLoadBalancer } from '../load-balancer/lifecycle.ts';
import { lbTestbed, twoListeners, type LbTestbed } from './load-balancer.ts';
import type { UserIdentity } from '../realised.ts';

export interface Scenario {
  readonly tb: LbTestbed;
  readonly identity: UserIdentity;
  readonly network: NetworkInput;
  /** A fresh two-listener spec (see twoListeners) with a new id. */
  newSpec(overrides?: Partial<LoadBalancerInput>): LoadBalancerInput;
  /** Passes until one does not yield; a pass that throws a TransientError is retried (an interruption). */
  converge(spec: LoadBalancerInput): Promise<{ outcome: Outcome<LoadBalancerRealisation>; rows: string[] }>;
  converged(spec: LoadBalancerInput): Promise<LoadBalancerRealisation>;
  /** Delete passes until done; the yields' reasons. */
  removeAll(spec: LoadBalancerInput): Promise<string[]>;
  inOctavia(spec: LoadBalancerInput): Promise<InOctavia>;
  /** Octavia writes sent by the provider's clients so far. */
  octaviaWrites(): number;
  close(): Promise<void>;
}

interface InOctavia {
  readonly lbs: octavia.LoadBalancer[];
  readonly listeners: octavia.Listener[];
  readonly pools: octavia.Pool[];
  readonly monitors: octavia.HealthMonitor[];
  /** `address:port` of each pool's members, by pool name. */
  readonly members: Map<string, string[]>;
}

export const byName = <T extends { name: string }>(items: readonly T[], name: string): T =>
  items.find((i) => i.name === name) ?? assert.fail(`no ${name}`);

export async function lbScenario(name: string): Promise<Scenario> {
  const tb = await lbTestbed();
  const identity = await tb.ownUser(name);
  const network = await tb.network(identity, `${name}-net`);
  const adminOctavia = () => tb.cloud.admin.client('load-balancer');
  let serial = 0;
  // Load balancers whose VIP sits on a real Neutron port, and that port (removed with them, as Octavia would).
  const realVips = new Map<string, string>();

  const ensureRealVip = async (spec: LoadBalancerInput): Promise<void> => {
    const found = await octavia.findLoadBalancerByName(adminOctavia(), loadBalancerName(spec.id));
    if (found === undefined || realVips.has(found.id)) return;
    realVips.set(found.id, (await tb.realVipPort(identity, network, found.id)).id);
  };

  const converge: Scenario['converge'] = async (spec) => {
    const rows: string[] = [];
    for (let pass = 0; pass < 40; pass++) {
      let outcome: Outcome<LoadBalancerRealisation> | undefined;
      try {
        outcome = await createLoadBalancer(tb.deps(), identity, spec);
      } catch (error) {
        if (!(error instanceof TransientError)) throw error;
        rows.push('error');
      }
      if (outcome !== undefined && outcome.kind !== 'yield') return { outcome, rows };
      if (outcome !== undefined) rows.push(outcome.reason);
      if (spec.publicIP) await ensureRealVip(spec);
      tb.settle();
    }
    throw new Error(`no convergence: ${rows.join(', ')}`);
  };

  return {
    tb,
    identity,
    network,
    newSpec: (overrides = {}) => twoListeners(`${name}-lb${String(++serial)}`, network.id, overrides),
    converge,
    converged: async (spec) => {
      const { outcome } = await converge(spec);
      assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
      return (outcome as { value: LoadBalancerRealisation }).value;
    },
    removeAll: async (spec) => {
      const rows: string[] = [];
      for (let pass = 0; pass < 20; pass++) {
        const found = await octavia.findLoadBalancerByName(adminOctavia(), loadBalancerName(spec.id));
        const outcome = await deleteLoadBalancer(tb.deps(), identity, spec);
        if (outcome.kind === 'done') return rows;
        assert.equal(outcome.kind, 'yield', JSON.stringify(outcome));
        const reason = (outcome as { reason: string }).reason;
        const port = found === undefined ? undefined : realVips.get(found.id);
        if (port !== undefined && reason.startsWith('cascade')) {
          await neutron.deletePort(tb.cloud.admin.client('network'), port);
        }
        rows.push(reason);
        tb.settle();
      }
      throw new Error('delete did not finish');
    },
    inOctavia: async (spec) => {
      const admin = adminOctavia();
      const prefix = `${loadBalancerName(spec.id)}-`;
      const lbs = (await octavia.listLoadBalancers(admin)).filter((l) => l.name === loadBalancerName(spec.id));
      const listeners = (await octavia.listListeners(admin)).filter((l) => l.name.startsWith(prefix));
      const pools = (await octavia.listPools(admin)).filter((p) => p.name.startsWith(prefix));
      const monitors = (await octavia.listHealthMonitors(admin)).filter((m) => m.name.startsWith(prefix));
      const members = new Map<string, string[]>();
      for (const pool of pools) {
        const listed = await octavia.listMembers(admin, pool.id);
        members.set(pool.name, listed.map((m) => `${m.address}:${String(m.protocol_port)}`).sort());
      }
      return { lbs, listeners, pools, monitors, members };
    },
    octaviaWrites: () =>
      tb.accounting
        .counts()
        .reduce((n, c) => n + (c.serviceType === 'load-balancer' && c.method !== 'GET' ? c.requests : 0), 0),
    close: () => tb.close(),
  };
}
