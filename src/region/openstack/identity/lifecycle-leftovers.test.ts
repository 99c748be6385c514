/**
 * What an identity's teardown removes beyond its own scaffolding (docs/adr/0038-leaks-snapshot-images-and-default-groups.md),
 * against the emulator: the snapshot images it published (and the region's image list forgets them at once), also
 * when the teardown is cut off after any call; and the `default` security group Neutron keeps from the region's
 * credential, tagged by the identity's own user for `region gc` and counted once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createImage, getImage, listImages, updateImage } from '../../../openstack/image.ts';
import { getSecurityGroup, listSecurityGroups } from '../../../openstack/network.ts';
import { ManualClock } from '../../../util/clock.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import type { Image } from '../../provider/types.ts';
import { InventoryCaches } from '../inventory/caches.ts';
import { inventoryProviderFor } from '../inventory/provider.ts';
import { ResourceConflictError } from '../../provider/errors.ts';
import { ImageProperty, LEFT_BEHIND_TAG, leftBehindIdentityTag } from '../names.ts';
import type { RegionContext } from '../registry.ts';
import { assertGone, identityRecord, recordingSecrets } from '../testing/identity.ts';
import { regionFixture, type RegionFixture } from '../testing/region.ts';
import { createIdentity, deleteIdentity, type IdentityDeps } from './lifecycle.ts';
import { testImage } from '../../provider/testing/image.ts';

/** A scheduler that never fires: the image cache changes only by what the test does. */
const still = { every: () => ({ cancel: () => undefined }) };

for (const account of ['configured', 'admin'] as const) {
  describe(`identity teardown leaves nothing behind (emulator, ${account} region account)`, () => {
    let fx: RegionFixture;
    let caches: InventoryCaches;
    let leftBehind = 0;
    const secrets = recordingSecrets([]);
    const deps = (): IdentityDeps => ({
      kube: fx.store,
      secrets,
      inventory: caches,
      onDefaultGroupLeftBehind: () => {
        leftBehind++;
      },
    });
    const ctx = { signal: new AbortController().signal };

    before(async () => {
      fx = await regionFixture(account);
      caches = new InventoryCaches({ clock: new ManualClock(), imageCache: true, scheduler: still });
    });
    after(() => {
      caches.stop();
      return fx.close();
    });

    const region = async (): Promise<RegionContext> => (await fx.registry()).lookup(fx.region.metadata.name);
    const newIdentity = (): IdentityInput => ({
      id: randomUUID(),
      organizationID: `org-${randomUUID()}`,
      projectID: `proj-${randomUUID()}`,
      regionID: fx.region.metadata.name,
    });
    const projectOf = async (identity: IdentityInput) => (await identityRecord(fx, identity.id)).spec.projectID ?? '';

    /** An image as snapshotServer leaves it: made in the project, carrying the identity, published or not. */
    const snapshot = async (context: RegionContext, identity: IdentityInput, publish: boolean) => {
      const glance = context.clients.privileged(await projectOf(identity)).client('image');
      const made = await createImage(glance, {
        name: `snap-${randomUUID()}`,
        properties: {
          [ImageProperty.identityID]: identity.id,
          [ImageProperty.organizationID]: identity.organizationID,
        },
      });
      if (publish) await updateImage(glance, made.id, [{ op: 'replace', property: 'visibility', value: 'public' }]);
      return made.id;
    };
    const exists = async (id: string) =>
      getImage(fx.admin.client('image'), id).then(
        () => true,
        () => false,
      );

    it("deletes the identity's snapshot images, published or not, before its project, and the image list forgets them", async () => {
      const context = await region();
      const identity = newIdentity();
      const neighbour = newIdentity();
      for (const i of [identity, neighbour])
        assert.deepEqual(await createIdentity(context, deps(), ctx, i), Outcome.ok());
      const published = await snapshot(context, identity, true);
      const unpublished = await snapshot(context, identity, false);
      const protectedOne = await snapshot(context, identity, true);
      await updateImage(fx.admin.client('image'), protectedOne, [
        { op: 'replace', property: 'protected', value: true },
      ]);
      const theirs = await snapshot(context, neighbour, true);
      // An image of the project that names no identity is not a snapshot of ours: left alone.
      const glance = context.clients.privileged(await projectOf(identity)).client('image');
      const foreign = (await createImage(glance, { name: `foreign-${randomUUID()}` })).id;

      const images = caches.for(context).images ?? assert.fail('the image cache is on');
      await images.ready();
      const entry = (id: string): Image =>
        testImage(id, { organizationID: identity.organizationID, identityID: identity.id });
      images.insertIfAbsent(entry(published)); // as recordSnapshot does
      images.insertIfAbsent(entry(theirs));

      assert.deepEqual(await deleteIdentity(context, deps(), ctx, identity), Outcome.ok());
      await assertGone(fx, identity);
      for (const id of [published, unpublished, protectedOne]) assert.equal(await exists(id), false, `${id} deleted`);
      assert.equal(await exists(theirs), true, "another identity's snapshot stays");
      assert.equal(await exists(foreign), true, 'an image naming no identity stays');
      const listed = images.snapshot().items.map((i) => i.id);
      assert.ok(!listed.includes(published), 'the image list forgot the deleted snapshot');
      assert.ok(listed.includes(theirs));

      assert.deepEqual(await deleteIdentity(context, deps(), ctx, neighbour), Outcome.ok());
      assert.equal(await exists(theirs), false);
      const admin = fx.admin.client('image');
      await updateImage(admin, foreign, [{ op: 'replace', property: 'visibility', value: 'public' }]).catch(() => {});
      const left = (await listImages(admin)).filter((i) => i.id === foreign);
      for (const image of left) await admin.request({ method: 'DELETE', path: `/images/${image.id}` });
    });

    it("a tenant's delete of its snapshot goes through its owner's project; a protected one is a conflict", async () => {
      const context = await region();
      const identity = newIdentity();
      assert.deepEqual(await createIdentity(context, deps(), ctx, identity), Outcome.ok());
      const inventory = inventoryProviderFor(context, { caches });
      const taken = await snapshot(context, identity, true);
      // Owned by the identity's project, not the region's: the region's own client may not delete it.
      await inventory.deleteImage(ctx, taken);
      assert.equal(await exists(taken), false);
      const guarded = await snapshot(context, identity, true);
      await updateImage(fx.admin.client('image'), guarded, [{ op: 'replace', property: 'protected', value: true }]);
      await assert.rejects(inventory.deleteImage(ctx, guarded), ResourceConflictError);
      assert.equal(await exists(guarded), true);
      await inventory.deleteImage(
        ctx,
        guarded.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
      ); // gone: done
      assert.deepEqual(await deleteIdentity(context, deps(), ctx, identity), Outcome.ok());
      assert.equal(await exists(guarded), false, 'the teardown unprotects and deletes it');
    });

    it('converges on its snapshot images after the teardown is cut off after each call in turn', async () => {
      let n = 1;
      for (; ; n++) {
        const context = await region();
        const identity = newIdentity();
        assert.deepEqual(await createIdentity(context, deps(), ctx, identity), Outcome.ok());
        const made = [await snapshot(context, identity, true), await snapshot(context, identity, true)];
        fx.transport.interruptAfter(n);
        const outcome = await deleteIdentity(context, deps(), ctx, identity).catch(() => undefined);
        fx.transport.interruptAfter(undefined);
        if (outcome === undefined) {
          assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok(), `after ${n}`);
        }
        await assertGone(fx, identity);
        for (const id of made) assert.equal(await exists(id), false, `snapshot ${id} gone after call ${String(n)}`);
        if (outcome !== undefined) break;
      }
      assert.ok(n - 1 >= 10, `a delete makes ${String(n - 1)} calls`);
    });

    it(
      account === 'admin'
        ? 'an admin region account removes the default group: nothing is tagged or counted'
        : 'the default group Neutron keeps is tagged by the identity for region gc, and counted once',
      async () => {
        const context = await region();
        const identity = newIdentity();
        assert.deepEqual(await createIdentity(context, deps(), ctx, identity), Outcome.ok());
        const projectID = await projectOf(identity);
        const neutron = fx.admin.client('network');
        const left = async () =>
          (await listSecurityGroups(neutron, { name: 'default' })).filter((g) => g.project_id === projectID);
        const counted = leftBehind;
        const start = fx.transport.requests.length;
        assert.deepEqual(await deleteIdentity(context, deps(), ctx, identity), Outcome.ok());
        if (account === 'admin') {
          assert.deepEqual(await left(), []);
          assert.equal(leftBehind, counted);
          return;
        }
        const [kept] = await left();
        assert.ok(kept, 'Neutron kept it');
        const tags = (await getSecurityGroup(neutron, kept.id)).tags;
        assert.ok(tags.includes(LEFT_BEHIND_TAG) && tags.includes(leftBehindIdentityTag(identity.id)), tags.join(','));
        assert.equal(leftBehind, counted + 1, 'counted once');
        const tagging = fx.transport.requests
          .slice(start)
          .filter((r) => r.urlTemplate === '/security-groups/{id}/tags/{tag}');
        assert.equal(tagging.length, 2);
        const { userID } = (await identityRecord(fx, identity.id).catch(() => ({ spec: { userID: undefined } }))).spec;
        assert.equal(userID, undefined, 'the record is gone');
        assert.ok(
          tagging.every((r) => r.caller !== undefined && r.caller.userID !== fx.credentials.userID),
          "tagged by the identity's own user, not the region's",
        );
        await neutron.request({ method: 'DELETE', path: `/security-groups/${kept.id}` });
      },
    );
  });
}
