/**
 * v2 servers, pure: upstream's create and update rules (422s) over what the route fetched, the Server a create
 * makes, what an update may change, and the read. One image contract for create and for an image change: visible
 * to the organization, ready, and architecture-, disk- and virtualization-compatible with the flavor.
 */
import { v5 as uuidV5 } from 'uuid';
import type { KubeObject } from '../../../kube/object.ts';
import {
  labels,
  resolveSSHInjection,
  type Network,
  type Server,
  type ServerSpec,
  type SSHInjection,
  type Volume,
} from '../../apis/index.ts';
import { imageFitsFlavorDisk } from '../../provider/disk.ts';
import type { Flavor, Image } from '../../provider/types.ts';
import type { Principal } from '../auth.ts';
import { violation, type FieldViolation } from '../problem.ts';
import type { ProvisioningStatus, ResourceWriteMetadata } from '../schemas/common.ts';
import type { ServerV2CreateSpec, ServerV2Read, ServerV2Spec } from '../schemas/server.ts';
import { powerStateOf, serverReadMetadataOf } from '../status.ts';
import { newMetadata, resource, tenancyOf } from './meta.ts';
import { userDataProblem } from './server-user-data.ts';
import { defined } from '../../../util/defined.ts';

/** What the route looked up for the rules: undefined means absent or not visible. */
export interface ServerReferences {
  readonly flavor: Flavor | undefined;
  /** Undefined when the flavor is not being checked (an update that keeps the image). */
  readonly image?: Image | undefined;
  readonly checkImage: boolean;
  /** Each named security group, with the network it belongs to. */
  readonly securityGroups: readonly (KubeObject | undefined)[];
  readonly sshCertificateAuthority?: KubeObject | undefined;
  /** Each volume spec.volumes names, in order: undefined when absent or not visible. */
  readonly volumes: readonly (Volume | undefined)[];
  /** Which server claims or requests each volume: every server but the one being written. */
  readonly claimants: ReadonlyMap<string, string>;
}

type V2Volumes = ServerV2Spec['volumes'];

/**
 * A server's id, derived from its network and display name as upstream derives it (a name-based UUID in the
 * network's namespace), in both API generations: a second server of one name on one network is the same object, so
 * the store refuses it (409) atomically, and the Nova server, named by that display name, is never shared
 * (docs/adr/0034-server-identity-and-delete-blast-radius.md).
 */
export function serverIDFor(networkID: string, name: string): string {
  return uuidV5(name, networkID);
}

/** The 409 a second server of one name on one network gets. */
export const duplicateServerMessage = (name: string): string => `a server named ${name} already exists on this network`;

/**
 * A server's display name names its Nova server, so it cannot change (upstream: "server names are immutable");
 * `where` is the name's field in the body.
 */
export function renameViolations(name: string, current: Server, where = '/metadata/name'): FieldViolation[] {
  return name === current.metadata.labels?.[labels.name]
    ? []
    : [violation(where, 'immutable', 'server names are immutable')];
}

/**
 * spec.volumes' rules (422): each named once, existing, and on the server's network (its identity's project, the
 * only place the server can see it). The claim rule is volumeConflicts (409).
 */
function volumeViolations(volumes: V2Volumes, identityID: string, refs: ServerReferences): FieldViolation[] {
  const seen = new Set<string>();
  return (volumes ?? []).flatMap((v, i) => {
    const at = `/spec/volumes/${String(i)}/volumeId`;
    if (seen.has(v.volumeId)) return [violation(at, 'unique', 'a volume may be named once')];
    seen.add(v.volumeId);
    const volume = refs.volumes[i];
    if (volume === undefined) return [violation(at, 'exists', 'no such volume')];
    if (tenancyOf(volume).identityID !== identityID) {
      return [violation(at, 'sameNetwork', 'a volume must belong to the same network as the server')];
    }
    return [];
  });
}

/**
 * A volume another server holds (its claim) or asks for (its spec), or one being deleted, cannot be given to this
 * one: a conflict with the current state (409), naming the field.
 */
export function volumeConflicts(volumes: V2Volumes, serverID: string | undefined, refs: ServerReferences) {
  return (volumes ?? []).flatMap((v, i) => {
    const at = `/spec/volumes/${String(i)}/volumeId`;
    const volume = refs.volumes[i];
    const claim = volume?.spec.claimRef?.id;
    const holder = claim !== undefined && claim !== serverID ? claim : refs.claimants.get(v.volumeId);
    if (holder !== undefined) {
      return [violation(at, 'available', `the volume is attached to (or requested by) server ${holder}`)];
    }
    if (volume?.metadata.deletionTimestamp !== undefined && claim !== serverID) {
      return [violation(at, 'available', 'the volume is being deleted')];
    }
    return [];
  });
}

export function imageViolations(image: Image | undefined, flavor: Flavor | undefined): FieldViolation[] {
  const at = '/spec/imageId';
  if (image === undefined) return [violation(at, 'exists', 'no such image')];
  if (image.status !== 'ready') return [violation(at, 'ready', 'the image is not ready')];
  if (flavor === undefined) return [];
  const errors: FieldViolation[] = [];
  if (image.architecture !== flavor.architecture) {
    errors.push(violation(at, 'architecture', "the image's architecture does not match the flavor's"));
  }
  if (flavor.baremetal ? image.virtualization === 'virtualized' : image.virtualization === 'baremetal') {
    errors.push(violation(at, 'virtualization', "the image's virtualization does not suit the flavor"));
  }
  if (!imageFitsFlavorDisk(image, flavor)) {
    errors.push(violation(at, 'disk', "the image is larger than the flavor's disk"));
  }
  return errors;
}

function networkingViolations(network: Network, refs: ServerReferences): FieldViolation[] {
  return refs.securityGroups.flatMap((sg, i) => {
    const at = `/spec/networking/securityGroups/${String(i)}`;
    if (sg === undefined) return [violation(at, 'exists', 'no such security group')];
    const group = tenancyOf(sg);
    // A v1 security group lives in its identity, on no network: it must be the server's identity.
    if (group.networkID === '') {
      return group.identityID === tenancyOf(network).identityID
        ? []
        : [violation(at, 'sameIdentity', 'a referenced security group must belong to the identity of the server')];
    }
    return group.networkID === network.metadata.name
      ? []
      : [violation(at, 'sameNetwork', 'a referenced security group must belong to the same network as the server')];
  });
}

function userDataViolations(userData: string | undefined): FieldViolation[] {
  const reason = userData === undefined ? undefined : userDataProblem(userData);
  return reason === undefined ? [] : [violation('/spec/userData', 'cloudInit', reason)];
}

/**
 * The SSH mode as it resolves (unset: ca with a CA, else identityKeypair), so a default is checked like an explicit
 * choice: ca needs a CA, identityKeypair and none take none, and a pinned server, created with the region credential,
 * cannot send the identity's key_name (Nova refuses it as an invalid key_name, terminally).
 */
function sshInjectionViolations(
  spec: Pick<ServerV2CreateSpec, 'sshInjection' | 'sshCertificateAuthorityId' | 'infrastructureRef'>,
): FieldViolation[] {
  const hasCA = spec.sshCertificateAuthorityId !== undefined;
  const mode = resolveSSHInjection(spec.sshInjection, hasCA);
  const errors: FieldViolation[] = [];
  if (mode === 'ca' && !hasCA) {
    errors.push(violation('/spec/sshInjection', 'requiresCertificateAuthority', 'ca needs sshCertificateAuthorityId'));
  }
  if (mode !== 'ca' && hasCA) {
    errors.push(
      violation('/spec/sshInjection', 'exclusive', `${mode} cannot be combined with sshCertificateAuthorityId`),
    );
  }
  if (spec.infrastructureRef !== undefined && mode === 'identityKeypair') {
    const how = spec.sshInjection === undefined ? ' (the mode an unset sshInjection without a CA resolves to)' : '';
    errors.push(
      violation(
        '/spec/infrastructureRef',
        'exclusive',
        `infrastructureRef cannot be combined with identityKeypair${how}; set sshInjection to ca or none`,
      ),
    );
  }
  return errors;
}

export function serverCreateViolations(
  spec: ServerV2CreateSpec,
  network: Network,
  refs: ServerReferences,
): FieldViolation[] {
  const errors: FieldViolation[] = sshInjectionViolations(spec);
  if (spec.sshCertificateAuthorityId !== undefined) {
    const ca = refs.sshCertificateAuthority;
    const network_ = tenancyOf(network);
    if (ca === undefined) {
      errors.push(violation('/spec/sshCertificateAuthorityId', 'exists', 'no such SSH certificate authority'));
    } else if (
      tenancyOf(ca).projectID !== network_.projectID ||
      tenancyOf(ca).organizationID !== network_.organizationID
    ) {
      errors.push(
        violation(
          '/spec/sshCertificateAuthorityId',
          'sameProject',
          'the SSH certificate authority must belong to the same project',
        ),
      );
    }
  }
  if (refs.flavor === undefined) errors.push(violation('/spec/flavorId', 'exists', 'no such flavor'));
  else if (refs.flavor.pinnedOnly && spec.infrastructureRef === undefined) {
    errors.push(violation('/spec/flavorId', 'pinnedOnly', 'the flavor is only for servers pinned to a host'));
  }
  errors.push(...imageViolations(refs.image, refs.flavor));
  errors.push(...networkingViolations(network, refs));
  errors.push(...volumeViolations(spec.volumes, tenancyOf(network).identityID, refs));
  errors.push(...userDataViolations(spec.userData));
  return errors;
}

export function serverUpdateViolations(
  spec: ServerV2Spec,
  current: Server,
  network: Network,
  refs: ServerReferences,
): FieldViolation[] {
  const errors: FieldViolation[] = [];
  if (spec.flavorId !== current.spec.flavorID) {
    errors.push(violation('/spec/flavorId', 'immutable', 'the flavor cannot be changed'));
  }
  if (refs.checkImage) errors.push(...imageViolations(refs.image, refs.flavor));
  errors.push(...networkingViolations(network, refs));
  errors.push(...volumeViolations(spec.volumes, tenancyOf(current).identityID, refs));
  // Legacy payloads PUT back unchanged keep working: user data is checked only when it changes.
  if (spec.userData !== current.spec.userData) errors.push(...userDataViolations(spec.userData));
  return errors;
}

function mutableSpec(
  spec: ServerV2Spec,
  networkID: string,
): Pick<ServerSpec, 'image' | 'securityGroups' | 'publicIPAllocation' | 'networks' | 'volumes' | 'userData'> {
  const networking = spec.networking;
  const pairs = networking?.allowedSourceAddresses?.map((cidr) => ({ cidr }));
  return {
    image: { id: spec.imageId },
    ...(networking?.securityGroups === undefined
      ? {}
      : { securityGroups: networking.securityGroups.map((id) => ({ id })) }),
    ...(networking?.publicIP === undefined ? {} : { publicIPAllocation: { enabled: networking.publicIP } }),
    networks: [{ id: networkID, ...(pairs === undefined || pairs.length === 0 ? {} : { allowedAddressPairs: pairs }) }],
    ...(spec.volumes === undefined || spec.volumes.length === 0
      ? {}
      : {
          volumes: spec.volumes.map((v) => ({
            id: v.volumeId,
            ...defined({ device: v.device }),
          })),
        }),
    ...defined({ userData: spec.userData }),
  };
}

export function serverFor(
  id: string,
  metadata: ResourceWriteMetadata,
  spec: ServerV2CreateSpec,
  network: Network,
  principal: Principal,
): Server {
  const tenancy = { ...tenancyOf(network), networkID: network.metadata.name };
  const body: ServerSpec = {
    flavorID: spec.flavorId,
    ...mutableSpec(spec, network.metadata.name),
    ...(spec.sshCertificateAuthorityId === undefined
      ? {}
      : { sshCertificateAuthorityID: spec.sshCertificateAuthorityId }),
    ...defined({ sshInjection: spec.sshInjection, infrastructureRef: spec.infrastructureRef, tags: metadata.tags }),
  };
  return resource('Server', newMetadata(id, metadata, tenancy, principal, network), body) as Server;
}

/**
 * An update's spec: what the body may change, everything create-time kept. User data or volumes omitted clear them
 * (a PUT replaces; a volume left out is detached).
 */
export function updatedServerSpec(
  spec: ServerV2Spec,
  current: Server,
  tags: ResourceWriteMetadata['tags'],
): ServerSpec {
  const {
    image: _i,
    securityGroups: _s,
    publicIPAllocation: _p,
    networks,
    volumes: _v,
    userData: _u,
    tags: _t,
    ...kept
  } = current.spec;
  return {
    ...kept,
    ...mutableSpec(spec, networks[0]?.id ?? tenancyOf(current).networkID),
    ...defined({ tags }),
  };
}

export function resolvedSSHInjection(spec: ServerSpec): SSHInjection {
  return resolveSSHInjection(spec.sshInjection, spec.sshCertificateAuthorityID !== undefined);
}

export function serverRead(server: Server): ServerV2Read {
  const { spec, status } = server;
  const tenancy = tenancyOf(server);
  const pairs = spec.networks[0]?.allowedAddressPairs?.map((p) => p.cidr);
  const power = powerStateOf(server);
  return {
    metadata: serverReadMetadataOf(server),
    spec: {
      flavorId: spec.flavorID,
      imageId: spec.image?.id ?? '',
      networking: {
        ...(spec.securityGroups === undefined ? {} : { securityGroups: spec.securityGroups.map((s) => s.id) }),
        ...(spec.publicIPAllocation === undefined ? {} : { publicIP: spec.publicIPAllocation.enabled }),
        ...defined({ allowedSourceAddresses: pairs }),
      },
      ...(spec.volumes === undefined
        ? {}
        : {
            volumes: spec.volumes.map((v) => ({
              volumeId: v.id,
              ...defined({ device: v.device }),
            })),
          }),
      ...defined({ userData: spec.userData }),
    },
    status: {
      regionId: tenancy.regionID,
      networkId: spec.networks[0]?.id ?? tenancy.networkID,
      ...(spec.sshCertificateAuthorityID === undefined
        ? {}
        : { sshCertificateAuthorityId: spec.sshCertificateAuthorityID }),
      sshInjection: resolvedSSHInjection(spec),
      ...defined({
        infrastructureRef: spec.infrastructureRef,
        powerState: power,
        privateIP: status?.privateIP,
        publicIP: status?.publicIP,
        macAddress: status?.macAddress,
      }),
      ...(status?.volumes === undefined
        ? {}
        : {
            volumes: status.volumes.map((row) => ({
              volumeId: row.id,
              provisioningStatus: ROW_STATUS[row.provisioningStatus],
              ...defined({ device: row.device, message: row.message }),
            })),
          }),
    },
  };
}

const ROW_STATUS = {
  Provisioning: 'provisioning',
  Provisioned: 'provisioned',
  Errored: 'error',
  Deprovisioning: 'deprovisioning',
} as const satisfies Record<string, ProvisioningStatus>;
