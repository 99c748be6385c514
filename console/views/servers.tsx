/**
 * Servers: create one (network, flavor, image, SSH mode, public IP, security groups), watch each live — its phase,
 * the monitor's observation (power state and health), its conditions and addresses — and drive it: power actions,
 * an image change (a rebuild), console output, volume attachments, delete. Each server's name links to its own page
 * (server-detail.tsx), which has its Events, snapshots and SSH key as well.
 */
import { useState } from 'preact/hooks';
import type { NetworkV2Read } from '../../src/region/http/schemas/network.ts';
import type { SecurityGroupV2Read } from '../../src/region/http/schemas/security-group.ts';
import { ServerV2Create, ServerV2Update, type ServerV2Read } from '../../src/region/http/schemas/server.ts';
import type { VolumeV2Read } from '../../src/region/http/schemas/inventory.ts';
import { Badge, Busy, Field, Options, ProblemNote, Section } from '../components.tsx';
import { useLive } from '../live.ts';
import { useScope } from '../context.ts';
import { networkColumn, ResourceTable } from '../resource-table.tsx';
import { shownPointers, useSubmit } from '../form.ts';
import { useInventory, type Inventory } from '../inventory.ts';
import { serverPhase } from '../phase.ts';

export function ServersView() {
  const { api, organizationID, regionID } = useScope();
  const { inventory, problem } = useInventory(api, regionID, organizationID);
  const { servers, networks, securitygroups, volumes } = useLive('servers', 'networks', 'securitygroups', 'volumes');
  const [open, setOpen] = useState<string | undefined>(undefined);
  const imageName = (id: string) => inventory?.images.find((i) => i.metadata.id === id)?.metadata.name ?? id;
  return (
    <>
      <h1>Servers</h1>
      <ProblemNote problem={problem} />
      {inventory === undefined ? null : (
        <CreateServer inventory={inventory} networks={networks.value ?? []} groups={securitygroups.value ?? []} />
      )}
      <Section title="Your servers">
        <ResourceTable
          what="servers"
          listed={servers}
          columns={[
            { title: 'Phase', class: 'phase', live: true, cell: (s) => <Phase server={s} /> },
            { title: 'Image', cell: (s) => imageName(s.spec.imageId) },
            networkColumn(networks.value ?? []),
            {
              title: 'Addresses',
              cell: (s) => (
                <>
                  {s.status.privateIP ?? '—'}
                  {s.status.publicIP === undefined ? null : ` / ${s.status.publicIP}`}
                </>
              ),
            },
          ]}
          path={(s) => `/api/v2/servers/${s.metadata.id}`}
          href={(s) => `/servers/${s.metadata.id}`}
          more={(s) => <p class="observation">Monitor: {s.status.powerState ?? 'not observed yet'}</p>}
          actions={(s) => (
            <button
              type="button"
              aria-expanded={open === s.metadata.id}
              onClick={() => setOpen(open === s.metadata.id ? undefined : s.metadata.id)}
            >
              Manage {s.metadata.name}
            </button>
          )}
        />
        {inventory === undefined
          ? null
          : (servers.value ?? [])
              .filter((s) => s.metadata.id === open)
              .map((s) => (
                <ManageServer key={s.metadata.id} server={s} inventory={inventory} volumes={volumes.value ?? []} />
              ))}
      </Section>
    </>
  );
}

const CREATE_SHOWN = shownPointers(
  '/metadata/name',
  '/spec/networkId',
  '/spec/flavorId',
  '/spec/imageId',
  '/spec/sshInjection',
  '/spec/networking',
);

/** A server's phase, with a progress bar while a long operation (build, rebuild, delete) is under way. */
export function Phase({ server }: { server: ServerV2Read }) {
  const phase = serverPhase(server);
  const busy = ['building', 'rebuilding', 'deleting', 'pending', 'queued', 'provisioning', 'stopping'].includes(phase);
  return (
    <>
      <Badge value={phase} />
      {busy ? <Busy label={`${server.metadata.name}: ${phase}`} /> : null}
    </>
  );
}

function CreateServer(props: {
  inventory: Inventory;
  networks: readonly NetworkV2Read[];
  groups: readonly SecurityGroupV2Read[];
}) {
  const { api } = useScope();
  const { inventory, networks } = props;
  const [name, setName] = useState('');
  const [networkID, setNetworkID] = useState('');
  const [flavorID, setFlavorID] = useState(inventory.flavors[0]?.metadata.id ?? '');
  const [imageID, setImageID] = useState(inventory.images[0]?.metadata.id ?? '');
  const [sshInjection, setSshInjection] = useState<'' | 'identityKeypair' | 'none'>('');
  const [publicIP, setPublicIP] = useState(false);
  const [securityGroups, setSecurityGroups] = useState<string[]>([]);
  const network = networkID === '' ? (networks[0]?.metadata.id ?? '') : networkID;
  const submit = useSubmit(ServerV2Create);
  const body = () => ({
    metadata: { name },
    spec: {
      networkId: network,
      flavorId: flavorID,
      imageId: imageID,
      ...(sshInjection === '' ? {} : { sshInjection }),
      ...(publicIP || securityGroups.length > 0
        ? {
            networking: { ...(publicIP ? { publicIP } : {}), ...(securityGroups.length > 0 ? { securityGroups } : {}) },
          }
        : {}),
    },
  });
  const onNetwork = props.groups.filter((g) => g.status.networkId === network);
  return (
    <Section title="Create a server">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit
            .run(body(), (b) => api('POST', '/api/v2/servers', b))
            .then((ok) => {
              if (ok) setName('');
            });
        }}
      >
        <Field label="Name" pointer="/metadata/name" errors={submit.errors}>
          {(p) => <input {...p} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field label="Network" pointer="/spec/networkId" errors={submit.errors}>
          {(p) => (
            <select {...p} value={network} onChange={(e) => setNetworkID(e.currentTarget.value)}>
              <Options items={networks} />
            </select>
          )}
        </Field>
        <Field label="Flavor" pointer="/spec/flavorId" errors={submit.errors}>
          {(p) => (
            <select {...p} value={flavorID} onChange={(e) => setFlavorID(e.currentTarget.value)}>
              <Options items={inventory.flavors} />
            </select>
          )}
        </Field>
        <Field label="Image" pointer="/spec/imageId" errors={submit.errors}>
          {(p) => (
            <select {...p} value={imageID} onChange={(e) => setImageID(e.currentTarget.value)}>
              <Options items={inventory.images} />
            </select>
          )}
        </Field>
        <Field label="SSH access" pointer="/spec/sshInjection" errors={submit.errors}>
          {(p) => (
            <select
              {...p}
              value={sshInjection}
              onChange={(e) => setSshInjection(e.currentTarget.value as '' | 'identityKeypair' | 'none')}
            >
              <option value="">The default (the identity's key pair)</option>
              <option value="identityKeypair">The identity's key pair</option>
              <option value="none">None</option>
            </select>
          )}
        </Field>
        <Field label="Public IP" pointer="/spec/networking/publicIP" errors={submit.errors}>
          {(p) => (
            <input {...p} type="checkbox" checked={publicIP} onChange={(e) => setPublicIP(e.currentTarget.checked)} />
          )}
        </Field>
        {onNetwork.length === 0 ? null : (
          <Field label="Security groups" pointer="/spec/networking/securityGroups" errors={submit.errors}>
            {(p) => (
              <select
                {...p}
                multiple
                onChange={(e) => setSecurityGroups([...e.currentTarget.selectedOptions].map((o) => o.value))}
              >
                {onNetwork.map((g) => (
                  <option key={g.metadata.id} value={g.metadata.id} selected={securityGroups.includes(g.metadata.id)}>
                    {g.metadata.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <ProblemNote problem={submit.problem} shown={CREATE_SHOWN} />
        <button type="submit" disabled={submit.busy || network === ''}>
          Create server
        </button>
        {network === '' ? <p class="hint">Create a network first.</p> : null}
      </form>
    </Section>
  );
}

/** A server's URL in the region API, the stem of its sub-resources' (`${path}/consoleoutput`, …). */
export type ServerPath = `/api/v2/servers/${string}`;

/** The power actions a server takes (`POST /api/v2/servers/{id}/<action>`). */
type PowerAction = 'start' | 'stop' | 'softreboot' | 'hardreboot';

/** Power, rebuild (an image change), volume attachments and console output: on the list and the server's page. */
export function ManageServer({
  server,
  inventory,
  volumes,
  withConsole = true,
}: {
  server: ServerV2Read;
  inventory: Inventory;
  volumes: readonly VolumeV2Read[];
  withConsole?: boolean;
}) {
  const { api } = useScope();
  const path: ServerPath = `/api/v2/servers/${server.metadata.id}`;
  const [imageID, setImageID] = useState(server.spec.imageId);
  const [output, setOutput] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const [attach, setAttach] = useState('');
  const update = useSubmit(ServerV2Update);
  const [acting, setActing] = useState<string | undefined>(undefined);
  const attached = server.spec.volumes ?? [];
  const free = volumes.filter(
    (v) => v.status.networkId === server.status.networkId && !attached.some((a) => a.volumeId === v.metadata.id),
  );
  const put = (spec: ServerV2Read['spec']) =>
    update.run({ metadata: { name: server.metadata.name }, spec }, (b) => api('PUT', path, b));
  const act = (action: PowerAction) => {
    setProblem(undefined);
    setActing(action);
    api('POST', `${path}/${action}`)
      .catch(setProblem)
      .finally(() => setActing(undefined));
  };
  const volumeName = (id: string) => volumes.find((v) => v.metadata.id === id)?.metadata.name ?? id;
  return (
    <Section title={`Manage ${server.metadata.name}`}>
      <div class="toolbar" role="group" aria-label="Power">
        <button type="button" onClick={() => act('start')}>
          Start
        </button>
        <button type="button" onClick={() => act('stop')}>
          Stop
        </button>
        <button type="button" onClick={() => act('softreboot')}>
          Reboot
        </button>
        <button type="button" onClick={() => act('hardreboot')}>
          Power cycle
        </button>
        {acting === undefined ? null : <Busy label={`Sending ${acting}`} />}
      </div>
      <ProblemNote problem={problem} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void put({ ...server.spec, imageId: imageID });
        }}
      >
        <Field
          label="Image"
          pointer="/spec/imageId"
          id="manage-image"
          errors={update.errors}
          hint="Changing the image rebuilds the server, destroying its root disk"
        >
          {(p) => (
            <select {...p} value={imageID} onChange={(e) => setImageID(e.currentTarget.value)}>
              <Options items={inventory.images} />
            </select>
          )}
        </Field>
        <button type="submit" disabled={update.busy || imageID === server.spec.imageId}>
          Change image
        </button>
      </form>
      <h3>Volumes</h3>
      <ul>
        {attached.map((a) => {
          const row = server.status.volumes?.find((v) => v.volumeId === a.volumeId);
          return (
            <li key={a.volumeId}>
              {volumeName(a.volumeId)} <Badge value={row?.provisioningStatus ?? 'pending'} /> {row?.device ?? ''}{' '}
              {row?.message ?? ''}{' '}
              <button
                type="button"
                onClick={() => void put({ ...server.spec, volumes: attached.filter((v) => v.volumeId !== a.volumeId) })}
              >
                Detach {volumeName(a.volumeId)}
              </button>
            </li>
          );
        })}
      </ul>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (attach !== '') void put({ ...server.spec, volumes: [...attached, { volumeId: attach }] });
        }}
      >
        <Field label="Attach a volume" pointer="/spec/volumes" id="manage-volumes" errors={update.errors}>
          {(p) => (
            <select {...p} value={attach} onChange={(e) => setAttach(e.currentTarget.value)}>
              <option value="">Choose a volume on this server's network</option>
              <Options items={free} />
            </select>
          )}
        </Field>
        <button type="submit" disabled={attach === ''}>
          Attach
        </button>
      </form>
      <ProblemNote problem={update.problem} shown={shownPointers('/spec/imageId', '/spec/volumes')} />
      {withConsole ? (
        <>
          <button
            type="button"
            onClick={() => {
              api('GET', `${path}/consoleoutput?length=100`).then((o) => setOutput(o.contents), setProblem);
            }}
          >
            Show console output
          </button>
          {output === undefined ? null : (
            <pre class="console-output" tabIndex={0} aria-label="Console output">
              {output}
            </pre>
          )}
        </>
      ) : null}
    </Section>
  );
}
