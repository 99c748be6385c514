/**
 * What one emulated service asks of another, as narrow interfaces with an "absent service" default, so services
 * compose from a list: registering Neutron replaces `networks`, Cinder `volumes`, Placement `placement`; no
 * service file names another. The defaults answer as a cloud without that service would.
 */
import type { AuthContext } from './auth.ts';

/** An image as Nova needs it: to boot, rebuild and snapshot. */
export interface ImageFacts {
  readonly id: string;
  readonly name: string | null;
  readonly status: string;
  readonly owner: string | null;
  readonly visibility: string;
  readonly minDisk: number;
  readonly minRam: number;
}

export interface ImageLookup {
  /** The image if `auth` may see it. */
  find(auth: AuthContext, imageID: string): ImageFacts | undefined;
  /** Creates a snapshot image owned by `auth`'s project (queued until `finish` runs); returns its id. */
  snapshot(auth: AuthContext, name: string, properties: Readonly<Record<string, string>>): string;
  /** Completes a snapshot made by `snapshot`: it becomes active. */
  finishSnapshot(imageID: string): void;
}

/** One NIC of a server as Nova shows it under `addresses`. */
export interface ServerNic {
  readonly portId: string;
  readonly networkId: string;
  readonly networkName: string;
  readonly addr: string;
  readonly version: 4 | 6;
  readonly mac: string;
}

/** What Nova asks Neutron to plug a server into: a network (a new port) or an existing port. */
export interface PlugRequest {
  readonly serverId: string;
  readonly networkId?: string | undefined;
  readonly portId?: string | undefined;
  readonly fixedIp?: string | undefined;
}

export interface NetworkLookup {
  /**
   * Plugs a server into a network (making a port) or an existing port; throws `notFound(what)` for a network or
   * port the caller cannot see.
   */
  plug(auth: AuthContext, request: PlugRequest, notFound: (what: string) => Error): ServerNic;
  /** Releases the ports a server holds (deleting those Nova made). */
  unplug(serverID: string): void;
  /**
   * Makes a service's port (Octavia's VIP) for `projectId` on a subnet, or on the first subnet of a network, that
   * `auth` can see; throws `notFound(what)` otherwise.
   */
  servicePort(auth: AuthContext, request: ServicePortRequest, notFound: (what: string) => Error): ServicePort;
  /** Deletes a service port; floating IPs on it lose their port, as Neutron's do. */
  removeServicePort(portID: string): void;
}

export interface ServicePortRequest {
  readonly projectId: string;
  readonly subnetId?: string | undefined;
  readonly networkId?: string | undefined;
  readonly name: string;
  readonly deviceOwner: string;
  readonly deviceId: string;
}

export interface ServicePort {
  readonly portId: string;
  readonly networkId: string;
  readonly subnetId: string;
  readonly address: string;
}

export interface VolumeFacts {
  readonly id: string;
  readonly status: string;
  readonly projectId: string;
}

export interface VolumeLookup {
  find(auth: AuthContext, volumeID: string): VolumeFacts | undefined;
  /** Marks the volume attaching now and in-use with this server once the attach completes. */
  attach(volumeID: string, serverID: string, attachmentID: string, device: string): void;
  /** Marks the volume detaching now and available once the detach completes. */
  detach(volumeID: string, serverID: string): void;
}

export interface PlacementLookup {
  /** Whether some resource provider offers these custom resources and traits (Nova's scheduler asks). */
  canHost(
    resources: Readonly<Record<string, number>>,
    traits: Readonly<Record<string, 'required' | 'forbidden'>>,
  ): boolean;
}

const absentImages: ImageLookup = {
  find: () => undefined,
  snapshot: () => {
    throw new Error('no image service is registered');
  },
  finishSnapshot: () => undefined,
};

const absentNetworks: NetworkLookup = {
  plug: (_auth, request, notFound) => {
    throw notFound(request.portId === undefined ? `Network ${request.networkId ?? ''}` : `Port ${request.portId}`);
  },
  unplug: () => undefined,
  servicePort: (_auth, request, notFound) => {
    throw notFound(
      request.subnetId === undefined ? `Network ${request.networkId ?? ''}` : `Subnet ${request.subnetId}`,
    );
  },
  removeServicePort: () => undefined,
};

const absentVolumes: VolumeLookup = {
  find: () => undefined,
  attach: () => undefined,
  detach: () => undefined,
};

/** With no Placement, only the standard resource classes exist: every custom resource is unsatisfiable. */
const absentPlacement: PlacementLookup = {
  canHost: (resources) =>
    Object.entries(resources).every(([name, amount]) => amount <= 0 || !name.startsWith('CUSTOM_')),
};

export class Lookups {
  images: ImageLookup = absentImages;
  networks: NetworkLookup = absentNetworks;
  volumes: VolumeLookup = absentVolumes;
  placement: PlacementLookup = absentPlacement;
}
