import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  childLabels,
  childPrefix,
  deliveredSecretName,
  isOrderChild,
  keystoneUserChildNames,
  keystoneUserKind,
  LABEL_VALUE_MAX,
  OBJECT_NAME_MAX,
  orderLabelKeys,
  orderRemoteKey,
  passwordGenerationOf,
  type OrderRef,
} from './names.ts';

const onTarget: OrderRef = { kind: keystoneUserKind, cluster: 'edge-1', namespace: 'tenant-a', name: 'workflow' };
const onManagement: OrderRef = { ...onTarget, cluster: '' };

// DNS-1123 labels: what an order's name and namespace are, and a cluster name that passed the gate.
const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
const refArb: fc.Arbitrary<OrderRef> = fc.record({
  kind: fc.constant(keystoneUserKind),
  cluster: fc.oneof(fc.constant(''), label),
  namespace: label,
  name: label,
});
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function childOf(ref: OrderRef, name: string) {
  return { metadata: { name, labels: childLabels(ref) } };
}

describe('The shared scaffold: child naming and ownership', () => {
  it('ChildNames: the hashed prefix and every child of the specified table', () => {
    assert.equal(childPrefix(onTarget), 'workflow-a50c7809-user-');
    assert.equal(childPrefix(onManagement), 'workflow-cebe0e7a-user-');
    const names = keystoneUserChildNames(onTarget);
    assert.equal(names.user, 'workflow-a50c7809-user-user');
    assert.equal(names.probe, 'workflow-a50c7809-user-user-probe');
    assert.equal(names.password(3), 'workflow-a50c7809-user-password-v3');
    assert.equal(names.source, 'workflow-a50c7809-user-source');
    assert.equal(names.backup, 'workflow-a50c7809-user-backup');
    assert.equal(deliveredSecretName('workflow'), 'workflow-credentials');
  });

  it('the three ownership labels, the cluster label empty on the management cluster', () => {
    assert.deepEqual(childLabels(onTarget), {
      'c5c3.io/keystoneuser-name': 'workflow',
      'c5c3.io/keystoneuser-namespace': 'tenant-a',
      'c5c3.io/keystoneuser-cluster': 'edge-1',
    });
    assert.equal(childLabels(onManagement)['c5c3.io/keystoneuser-cluster'], '');
    assert.deepEqual(orderLabelKeys({ label: 'keystoneproject', segment: 'project' }), {
      name: 'c5c3.io/keystoneproject-name',
      namespace: 'c5c3.io/keystoneproject-namespace',
      cluster: 'c5c3.io/keystoneproject-cluster',
    });
  });

  it('the OpenBao path drops the trailing dash of the prefix', () => {
    assert.equal(
      orderRemoteKey('cp-ns', onTarget, 'credentials'),
      'openstack/keystone/cp-ns/workflow-a50c7809-user/service-accounts/credentials',
    );
  });

  it('a password Secret name yields its generation; another name or order yields none', () => {
    assert.equal(passwordGenerationOf(onTarget, 'workflow-a50c7809-user-password-v12'), 12);
    assert.equal(passwordGenerationOf(onTarget, 'workflow-a50c7809-user-password-v0'), undefined);
    assert.equal(passwordGenerationOf(onTarget, 'workflow-a50c7809-user-source'), undefined);
    assert.equal(passwordGenerationOf(onManagement, 'workflow-a50c7809-user-password-v1'), undefined);
  });

  it('the child test needs all three labels and the prefix: neither alone is enough', () => {
    const name = keystoneUserChildNames(onTarget).user;
    assert.equal(isOrderChild(onTarget, childOf(onTarget, name)), true);
    assert.equal(isOrderChild(onTarget, { metadata: { name } }), false, 'prefix without labels');
    assert.equal(isOrderChild(onTarget, childOf(onTarget, 'cp-keystone')), false, 'labels without prefix');
    const { 'c5c3.io/keystoneuser-cluster': _, ...twoLabels } = childLabels(onManagement);
    const managementName = keystoneUserChildNames(onManagement).user;
    assert.equal(isOrderChild(onManagement, { metadata: { name: managementName, labels: twoLabels } }), false);
    assert.equal(isOrderChild(onManagement, childOf(onTarget, managementName)), false, 'another cluster');
  });

  it('ChildNamesFitTheNameBudget: label values fit 63 and child names are DNS subdomains within 253', () => {
    fc.assert(
      fc.property(refArb, fc.integer({ min: 1, max: 2 ** 31 }), (ref, generation) => {
        for (const value of Object.values(childLabels(ref))) assert.ok(value.length <= LABEL_VALUE_MAX);
        const names = keystoneUserChildNames(ref);
        for (const name of [names.user, names.probe, names.password(generation), names.source, names.backup]) {
          assert.ok(name.length <= OBJECT_NAME_MAX && DNS_SUBDOMAIN.test(name), name);
        }
      }),
    );
  });

  it('naming is deterministic and distinct orders get distinct prefixes', () => {
    fc.assert(
      fc.property(refArb, refArb, (a, b) => {
        assert.equal(childPrefix(a), childPrefix({ ...a }));
        const same = a.cluster === b.cluster && a.namespace === b.namespace && a.name === b.name;
        assert.equal(childPrefix(a) === childPrefix(b), same);
      }),
    );
  });

  it("the child test accepts exactly the order's children, even when one order's name extends another's prefix", () => {
    const leaf = fc.constantFrom('user', 'user-probe', 'password-v1', 'source', 'backup');
    // A second order whose name begins with the first's prefix: the prefix test alone would take its children.
    const pair = refArb.chain((a) =>
      fc
        .oneof(
          refArb,
          fc.constant({ ...a, name: childPrefix(a) + 'x' }),
          fc.constant({ ...a, cluster: a.cluster === '' ? 'edge-1' : '' }),
          fc.constant({ ...a }),
        )
        .map((b) => [a, b] as const),
    );
    fc.assert(
      fc.property(pair, leaf, ([a, b], tail) => {
        const same = a.cluster === b.cluster && a.namespace === b.namespace && a.name === b.name;
        assert.equal(isOrderChild(a, childOf(b, childPrefix(b) + tail)), same);
      }),
    );
  });
});
