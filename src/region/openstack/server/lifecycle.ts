/**
 * What a tenant does to a running server: power (start, stop, soft and hard reboot), a console session URL and
 * the console log, a snapshot to an image; and the delete of the server, its port and its floating IP.
 *
 * Every call re-finds the server by its exact name in the identity's project. Power actions answer with an
 * outcome: a 409 (a task holds the server, or it is already in the asked state's way) yields for a short retry.
 * Delete is idempotent and ordered server → floating IP → port, yielding until Nova has let the server go (the
 * port is ours, so Nova leaves it behind).
 */
import * as nova from '../../../openstack/compute.ts';
import { ConflictError } from '../../../openstack/errors.ts';
import * as glance from '../../../openstack/image.ts';
import * as neutron from '../../../openstack/network.ts';
import { classify } from '../../provider/classify.ts';
import {
  ProviderError,
  ResourceConsistencyError,
  ResourceKind,
  ResourceNotFoundError,
  TransientError,
} from '../../provider/errors.ts';
import type { ServerInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import type { Image } from '../../provider/types.ts';
import { imageStatusOf, imageWriteProperties, readImage } from '../inventory/image-convert.ts';
import { gone, Steps } from '../steps.ts';
import { identityClient, type ServerDeps } from './deps.ts';
import { deleteFloatingIPs } from './floating-ip.ts';
import { findServerPort } from './port.ts';
import { boundServer, findServer } from './find.ts';
import { KnownPorts } from './known-ports.ts';
import type { UserIdentity } from '../realised.ts';

type PowerAction = 'start' | 'stop' | 'soft-reboot' | 'hard-reboot';

export async function powerServer(
  deps: ServerDeps,
  identity: UserIdentity,
  server: ServerInput,
  action: PowerAction,
): Promise<Outcome<undefined>> {
  const compute = identityClient(deps, identity, 'compute');
  const step = new Steps(deps.signal, `${action} server`, ResourceKind.Server);
  try {
    const found = await step.run('find server', () => mustFind(compute, server));
    await step.run(action, () => {
      switch (action) {
        case 'start':
          return nova.startServer(compute, found.id);
        case 'stop':
          return nova.stopServer(compute, found.id);
        case 'soft-reboot':
          return nova.rebootServer(compute, found.id, 'SOFT');
        case 'hard-reboot':
          return nova.rebootServer(compute, found.id, 'HARD');
      }
    });
    return Outcome.ok();
  } catch (error) {
    if (error instanceof ConflictError && !deps.signal.aborted) return Outcome.yield(`${action}/conflict`);
    return step.fail(error);
  }
}

/** A noVNC console URL; it carries a token, so it is returned to the tenant and never logged. */
export function consoleSession(deps: ServerDeps, identity: UserIdentity, server: ServerInput): Promise<string> {
  const compute = identityClient(deps, identity, 'compute');
  return read(deps, 'create console session', async () => {
    const found = await mustFind(compute, server);
    return (await nova.createRemoteConsole(compute, found.id)).url;
  });
}

export function consoleOutput(
  deps: ServerDeps,
  identity: UserIdentity,
  server: ServerInput,
  lines?: number,
): Promise<string> {
  const compute = identityClient(deps, identity, 'compute');
  return read(deps, 'get console output', async () =>
    nova.getConsoleOutput(compute, (await mustFind(compute, server)).id, lines),
  );
}

/**
 * Snapshots the server into Glance as upstream does: Nova's createImage, as the identity's user, carries the image's
 * properties (OS, architecture, virtualization, tags, packages, the hardware hints, and the organization and
 * identity that own it); then the privileged client (region credentials in the identity's project) publishes it, so
 * it joins the region's inventory, which lists public images and shows an organization's only to that organization.
 * A snapshot that cannot be published is deleted again (best effort) rather than left private and invisible. The
 * answer is the image as Glance now holds it.
 */
export function snapshotServer(
  deps: ServerDeps,
  identity: UserIdentity,
  server: ServerInput,
  image: Image,
): Promise<Image> {
  const compute = identityClient(deps, identity, 'compute');
  return read(deps, 'snapshot server', async () => {
    // Published means visible to every tenant of the cloud: only an organization's own image may be, so the
    // region's inventory shows it to that organization alone.
    if (image.organizationID === undefined) {
      throw new ResourceConsistencyError('a snapshot must be scoped to an organization', image_);
    }
    const found = await mustFind(compute, server);
    const metadata = imageWriteProperties({ ...image, identityID: identity.identityID });
    const id = await nova.createServerImage(compute, found.id, { name: image.name, metadata });
    const privileged = deps.clients.privileged(identity.projectID).client('image');
    let published: glance.Image;
    try {
      published = await glance.updateImage(privileged, id, [
        { op: 'replace', property: 'visibility', value: 'public' },
      ]);
    } catch (error) {
      await glance.deleteImage(privileged, id).catch((cleanup: unknown) => {
        deps.log.error({ imageID: id, err: cleanup }, 'a snapshot that could not be published could not be deleted');
      });
      throw error;
    }
    const reading = readImage(published, { defaultArchitecture: image.architecture });
    return reading.ok
      ? reading.image
      : { ...image, id, status: imageStatusOf(published.status), identityID: identity.identityID };
  });
}

const image_ = { resource: ResourceKind.Image };

export async function deleteServer(
  deps: ServerDeps,
  identity: UserIdentity | undefined,
  server: ServerInput,
): Promise<Outcome<undefined>> {
  // Never realised (no project, or no user to have made anything): no server, port or floating IP can exist.
  if (identity === undefined) return Outcome.ok();
  new KnownPorts(deps.clients).forget(identity, server);
  const compute = identityClient(deps, identity, 'compute');
  const neutronClient = identityClient(deps, identity, 'network');
  const step = new Steps(deps.signal, 'delete server', ResourceKind.Server);
  try {
    const named = await step.run('find server', () => findServer(compute, server));
    const port =
      named === undefined
        ? await step.run('find port', () => findServerPort(neutronClient, identity, server.id))
        : undefined;
    // Not under its name: a server renamed behind the API is still bound to the port (find.ts).
    const found = named ?? (await step.run('find bound server', () => boundServer(compute, server, port?.device_id)));
    if (found !== undefined) {
      // Already deleting: asking again would only be refused; wait for Nova to let go.
      if (found['OS-EXT-STS:task_state'] !== 'deleting') {
        await step.run('delete server', () => gone(nova.deleteServer(compute, found.id)));
      }
      return Outcome.yield('server-deleting');
    }
    if (port !== undefined) {
      await step.run('delete floating IPs', () => deleteFloatingIPs(neutronClient, identity, port.id));
      await step.run('delete port', () => gone(neutron.deletePort(neutronClient, port.id)));
    }
    return Outcome.ok();
  } catch (error) {
    return step.fail(error);
  }
}

async function mustFind(compute: ServerDepsCompute, server: ServerInput): Promise<nova.Server> {
  const found = await findServer(compute, server);
  if (found === undefined) {
    throw new ResourceNotFoundError(`server ${server.id} not found`, { resource: ResourceKind.Server });
  }
  return found;
}

type ServerDepsCompute = Parameters<typeof findServer>[0];

/** A read for the tenant: a provider error from the catalogue, never a raw OpenStack one. */
async function read<T>(deps: ServerDeps, operation: string, call: () => Promise<T>): Promise<T> {
  deps.signal.throwIfAborted();
  try {
    return await call();
  } catch (error) {
    if (deps.signal.aborted) throw error;
    const result = classify(error, { resource: ResourceKind.Server, operation, badRequest: 'transient' });
    throw result instanceof ProviderError ? result : new TransientError(operation, { cause: error });
  }
}
