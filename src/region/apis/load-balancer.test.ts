/**
 * The LoadBalancer listener rules where users write: CEL in the CRD, enforced by the embedded store on create and
 * update (transition rules see the stored object as oldSelf), held by a property test to the same verdicts as a
 * model of the rules written as code (`validateLoadBalancerUpdate`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { customResourceDefinition } from '../../kube/crd.ts';
import { type EmbeddedStore } from '../../kube/embedded/store.ts';
import { KubeInvalidError } from '../../kube/errors.ts';
import { checkCrd, prepareCustomResource, servedVersion } from '../../kube/schema/crd.ts';
import { systemClock } from '../../util/clock.ts';
import { regionKinds } from './index.ts';
import {
  loadBalancerRules,
  loadBalancerType,
  type LoadBalancer,
  type LoadBalancerSpec,
  type Listener,
} from './load-balancer.ts';
import { openRegionStore } from './testing/store.ts';
import { defined } from '../../util/defined.ts';

/** One refused field, as the REST API reports it: where, which rule, and the rule's message. */
interface LoadBalancerFieldError {
  /** A path from the spec, e.g. `listeners[1].port`. */
  readonly field: string;
  readonly rule: (typeof loadBalancerRules)[keyof typeof loadBalancerRules]['rule'];
  readonly message: string;
}

type ListenerView = Pick<Listener, 'name' | 'protocol' | 'port' | 'idleTimeoutSeconds'> & {
  readonly pool: { readonly proxyProtocolV2?: boolean | undefined };
};

/**
 * The listener rules as a pure function, the model the CEL rules are held to: `old` is the stored spec on an
 * update, undefined on a create. Returns every violation, in listener order.
 */
function validateLoadBalancerUpdate(
  old: { readonly listeners: readonly ListenerView[] } | undefined,
  next: { readonly listeners: readonly ListenerView[] },
): LoadBalancerFieldError[] {
  const errors: LoadBalancerFieldError[] = [];
  const refuse = (field: string, rule: keyof typeof loadBalancerRules) => {
    errors.push({ field, ...loadBalancerRules[rule] });
  };
  next.listeners.forEach((listener, i) => {
    const at = `listeners[${String(i)}]`;
    if (listener.protocol !== 'tcp' && listener.idleTimeoutSeconds !== undefined) {
      refuse(`${at}.idleTimeoutSeconds`, 'udpIdleTimeout');
    }
    if (listener.protocol !== 'tcp' && listener.pool.proxyProtocolV2 === true) {
      refuse(`${at}.pool.proxyProtocolV2`, 'udpProxyProtocol');
    }
    const before = old?.listeners.find((o) => o.name === listener.name);
    if (before === undefined) return;
    if (before.protocol !== listener.protocol) refuse(`${at}.protocol`, 'listenerImmutable');
    else if (before.port !== listener.port) refuse(`${at}.port`, 'listenerImmutable');
    if ((before.pool.proxyProtocolV2 === true) !== (listener.pool.proxyProtocolV2 === true)) {
      refuse(`${at}.pool.proxyProtocolV2`, 'proxyProtocolDrift');
    }
  });
  return errors;
}

const tcp = (name: string, port: number, proxy = false): Listener => ({
  name,
  protocol: 'tcp',
  port,
  pool: { proxyProtocolV2: proxy, members: [{ address: '192.168.0.5', port: 8080 }] },
});
const udp = (name: string, port: number): Listener => ({
  name,
  protocol: 'udp',
  port,
  pool: { members: [{ address: '192.168.0.6', port: 53 }] },
});

const object = (name: string, listeners: Listener[]): LoadBalancer => ({
  apiVersion: 'region.unikorn-cloud.org/v1alpha1',
  kind: 'LoadBalancer',
  metadata: { name, namespace: 'default' },
  spec: { listeners } satisfies LoadBalancerSpec,
});

describe('LoadBalancer listener rules in the embedded store', () => {
  let store: EmbeddedStore;
  let serial = 0;
  before(async () => {
    store = await openRegionStore(systemClock);
  });
  after(() => store.close());

  /** Creates with `from`, then updates to `to`; resolves to the refusal's messages ([] when accepted). */
  async function change(from: Listener[], to: Listener[]): Promise<string[]> {
    const name = `lb-${String(++serial)}`;
    const created = await store.create(loadBalancerType, object(name, from));
    try {
      await store.update(loadBalancerType, { ...object(name, to), metadata: created.metadata });
      return [];
    } catch (error) {
      assert.ok(error instanceof KubeInvalidError, String(error));
      return error.causes.map((c) => `${c.field}: ${c.message}`);
    }
  }

  it("refuses a change of an existing listener's protocol or port, with a clear message", async () => {
    const message = `spec.listeners: ${loadBalancerRules.listenerImmutable.message}`;
    assert.deepEqual(await change([tcp('web', 80)], [tcp('web', 8080)]), [message]);
    assert.deepEqual(await change([udp('dns', 53)], [{ ...tcp('dns', 53) }]), [message]);
  });

  it('refuses proxyProtocolV2 drift on an existing listener name, either way', async () => {
    const message = `spec.listeners: ${loadBalancerRules.proxyProtocolDrift.message}`;
    assert.deepEqual(await change([tcp('web', 80)], [tcp('web', 80, true)]), [message]);
    assert.deepEqual(await change([tcp('web', 80, true)], [tcp('web', 80, false)]), [message]);
    // Unset and false are the same setting: no drift.
    const unset = { ...tcp('web', 80), pool: { members: [] } };
    assert.deepEqual(await change([unset], [tcp('web', 80, false)]), []);
  });

  it('accepts in-place changes, a renamed listener (a new one) and a removed one', async () => {
    const changed = { ...tcp('web', 80), allowedCIDRs: ['10.0.0.0/8'], idleTimeoutSeconds: 600 };
    assert.deepEqual(await change([tcp('web', 80), udp('dns', 53)], [changed]), []);
    assert.deepEqual(await change([tcp('web', 80)], [tcp('www', 8080, true)]), []);
  });

  it('refuses a udp listener with an idle timeout or proxy protocol v2, on create', async () => {
    const refusal = async (listener: Listener): Promise<string[]> => {
      try {
        await store.create(loadBalancerType, object(`lb-${String(++serial)}`, [listener]));
        return [];
      } catch (error) {
        assert.ok(error instanceof KubeInvalidError, String(error));
        return error.causes.map((c) => `${c.field}: ${c.message}`);
      }
    };
    assert.deepEqual(await refusal({ ...udp('dns', 53), idleTimeoutSeconds: 5 }), [
      `spec.listeners[0].idleTimeoutSeconds: ${loadBalancerRules.udpIdleTimeout.message}`,
    ]);
    assert.deepEqual(await refusal({ ...udp('dns', 53), pool: { proxyProtocolV2: true, members: [] } }), [
      `spec.listeners[0].pool.proxyProtocolV2: ${loadBalancerRules.udpProxyProtocol.message}`,
    ]);
    assert.deepEqual(await refusal({ ...udp('dns', 53), pool: { proxyProtocolV2: false, members: [] } }), []);
  });
});

describe('validateLoadBalancerUpdate', () => {
  it('names the field and the rule of each violation', () => {
    const errors = validateLoadBalancerUpdate(
      { listeners: [tcp('web', 80), udp('dns', 53)] },
      { listeners: [tcp('web', 81, true), { ...udp('dns', 53), idleTimeoutSeconds: 3 }] },
    );
    assert.deepEqual(
      errors.map((e) => [e.field, e.rule]),
      [
        ['listeners[0].port', 'listener-protocol-port-immutable'],
        ['listeners[0].pool.proxyProtocolV2', 'listener-proxy-protocol-immutable'],
        ['listeners[1].idleTimeoutSeconds', 'udp-idle-timeout'],
      ],
    );
    assert.equal(errors[0]?.message, loadBalancerRules.listenerImmutable.message);
  });

  it('a create has no transition rules', () => {
    assert.deepEqual(validateLoadBalancerUpdate(undefined, { listeners: [tcp('web', 80, true)] }), []);
  });

  it('gives the same verdict, rule by rule, as the CRD (property)', () => {
    const kind = regionKinds.find((k) => k.type === loadBalancerType) ?? assert.fail('LoadBalancer is listed');
    const served = servedVersion(checkCrd(customResourceDefinition(kind)).spec, 'v1alpha1') ?? assert.fail();
    const listener = fc.record({
      name: fc.constantFrom('a', 'b', 'c'),
      protocol: fc.constantFrom('tcp' as const, 'udp' as const),
      port: fc.constantFrom(80, 81),
      idleTimeoutSeconds: fc.option(fc.constant(30), { nil: undefined }),
      proxy: fc.option(fc.boolean(), { nil: undefined }),
    });
    // Names unique and (protocol, port) unique, so only the rules under test can refuse.
    const listeners = fc
      .uniqueArray(listener, { minLength: 1, maxLength: 3, selector: (l) => l.name })
      .filter((ls) => new Set(ls.map((l) => `${l.protocol}/${String(l.port)}`)).size === ls.length)
      .map((ls) =>
        ls.map((l): Listener => ({
          name: l.name,
          protocol: l.protocol,
          port: l.port,
          ...defined({ idleTimeoutSeconds: l.idleTimeoutSeconds }),
          pool: { ...defined({ proxyProtocolV2: l.proxy }), members: [] },
        })),
      );
    const messages = (old: Listener[] | undefined, next: Listener[]): string[] => {
      try {
        prepareCustomResource(object('x', next), old === undefined ? undefined : object('x', old), served);
        return [];
      } catch (error) {
        assert.ok(error instanceof KubeInvalidError);
        return [...new Set(error.causes.map((c) => c.message))].sort();
      }
    };
    fc.assert(
      fc.property(fc.option(listeners, { nil: undefined }), listeners, (old, next) => {
        // The old spec must itself be valid to be stored.
        fc.pre(old === undefined || validateLoadBalancerUpdate(undefined, { listeners: old }).length === 0);
        const pure = [
          ...new Set(validateLoadBalancerUpdate(old && { listeners: old }, { listeners: next }).map((e) => e.message)),
        ].sort();
        assert.deepEqual(pure, messages(old, next), JSON.stringify({ old, next }));
      }),
      { numRuns: 300 },
    );
  });
});
