/**
 * One server's page (`/servers/<id>`): what it is and where (flavor, image, network, addresses, SSH access), its
 * conditions now and their history as its Events, live from the view's one watch stream; its power actions and
 * rebuild, attached volumes, console output, the organization's snapshots (take one, delete one) and the identity's
 * SSH key as a file.
 */
import { useEffect, useState } from 'preact/hooks';
import { SnapshotCreate } from '../../src/region/http/schemas/server.ts';
import { query } from '../api.ts';
import { Badge, Busy, Conditions, DeleteButton, Empty, Field, ProblemNote, Section, usePoll } from '../components.tsx';
import { useScope } from '../context.ts';
import { shownPointers, useSubmit } from '../form.ts';
import { useInventory } from '../inventory.ts';
import { useLive } from '../live.ts';
import { ObjectEvents } from './object-events.tsx';
import { ManageServer, Phase, type ServerPath } from './servers.tsx';

export function ServerDetailView({ id }: { id: string }) {
  const { api, organizationID, regionID } = useScope();
  const { servers, volumes, networks, securitygroups, changes } = useLive(
    'servers',
    'volumes',
    'networks',
    'securitygroups',
  );
  const { inventory, problem } = useInventory(api, regionID, organizationID);
  const server = servers.value?.find((s) => s.metadata.id === id);
  if (servers.value !== undefined && server === undefined) {
    return (
      <>
        <h1>Server not found</h1>
        <p>
          No server <code>{id}</code> in this project: it may have been deleted. <a href="/servers">All servers</a>
        </p>
      </>
    );
  }
  if (server === undefined) return <p aria-busy="true">Loading the server…</p>;
  const path: ServerPath = `/api/v2/servers/${server.metadata.id}`;
  const network = networks.value?.find((n) => n.metadata.id === server.status.networkId);
  const flavor = inventory?.flavors.find((f) => f.metadata.id === server.spec.flavorId);
  const image = inventory?.images.find((i) => i.metadata.id === server.spec.imageId);
  const groups = (server.spec.networking?.securityGroups ?? []).map(
    (g) => securitygroups.value?.find((s) => s.metadata.id === g)?.metadata.name ?? g,
  );
  return (
    <>
      <p class="crumbs">
        <a href="/servers">Servers</a> /
      </p>
      <h1>
        Server {server.metadata.name} <code class="secondary">{server.metadata.id}</code>
      </h1>
      <ProblemNote problem={problem ?? servers.problem} />
      <Section title="Summary">
        <dl class="summary">
          <dt>Phase</dt>
          <dd class="phase" aria-live="polite">
            <Phase server={server} />
          </dd>
          <dt>Flavor</dt>
          <dd>
            {flavor === undefined
              ? server.spec.flavorId
              : `${flavor.metadata.name} (${String(flavor.spec.cpus)} CPU, ${String(flavor.spec.memory)} GiB)`}
          </dd>
          <dt>Image</dt>
          <dd>{image?.metadata.name ?? server.spec.imageId}</dd>
          <dt>Network</dt>
          <dd>{network?.metadata.name ?? server.status.networkId}</dd>
          <dt>Addresses</dt>
          <dd>
            {server.status.privateIP ?? '—'}
            {server.status.publicIP === undefined ? null : ` / ${server.status.publicIP} (public)`}
          </dd>
          <dt>Security groups</dt>
          <dd>{groups.length === 0 ? 'none' : groups.join(', ')}</dd>
          <dt>SSH access</dt>
          <dd>{server.status.sshInjection ?? 'identityKeypair'}</dd>
          <dt>Monitor</dt>
          <dd>{server.status.powerState ?? 'not observed yet'}</dd>
        </dl>
        <SshKey path={path} name={server.metadata.name} />
      </Section>
      <Section title="Conditions">
        <Conditions meta={server.metadata} />
      </Section>
      <ObjectEvents path={path} changes={changes} />
      {inventory === undefined ? null : (
        <ManageServer server={server} inventory={inventory} volumes={volumes.value ?? []} withConsole={false} />
      )}
      <Snapshots path={path} serverName={server.metadata.name} />
      <ConsoleOutput path={path} />
    </>
  );
}

/** The identity's private key, as a file the browser saves (only for servers given the identity's key pair). */
function SshKey({ path, name }: { path: ServerPath; name: string }) {
  const { api } = useScope();
  const [problem, setProblem] = useState<unknown>(undefined);
  return (
    <div>
      <button
        type="button"
        onClick={() => {
          setProblem(undefined);
          api('GET', `${path}/sshkey`).then((key) => {
            const url = URL.createObjectURL(new Blob([key.privateKey], { type: 'application/x-pem-file' }));
            const link = document.createElement('a');
            link.href = url;
            link.download = `${name}.pem`;
            link.click();
            setTimeout(() => URL.revokeObjectURL(url), 10_000);
          }, setProblem);
        }}
      >
        Download the SSH key
      </button>
      <ProblemNote problem={problem} />
    </div>
  );
}

/** The organization's own images in this region — the snapshots taken of its servers — with take and delete. */
function Snapshots({ path, serverName }: { path: ServerPath; serverName: string }) {
  const { api, organizationID, regionID } = useScope();
  const region = encodeURIComponent(regionID ?? '');
  const images = usePoll(
    () => api('GET', `/api/v2/regions/${region}/images${query({ organizationID, scope: 'owned' })}`),
    [api, region, organizationID],
  );
  const snapshot = useSubmit(SnapshotCreate);
  const [name, setName] = useState(`${serverName}-snapshot`);
  const remove = (id: string) =>
    api(
      'DELETE',
      `/api/v1/organizations/${encodeURIComponent(organizationID)}/regions/${region}/images/${encodeURIComponent(id)}`,
    ).then(images.refresh);
  return (
    <Section title="Snapshots">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void snapshot
            .run({ metadata: { name }, spec: {} }, (b) => api('POST', `${path}/snapshot`, b))
            .then((ok) => {
              if (ok) images.refresh();
            });
        }}
      >
        <Field label="Snapshot name" pointer="/metadata/name" id="snapshot-name" errors={snapshot.errors}>
          {(p) => <input {...p} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={snapshot.busy}>
          Take a snapshot
        </button>
        {snapshot.busy ? <Busy label="Taking the snapshot" /> : null}
        <ProblemNote problem={snapshot.problem} shown={shownPointers('/metadata/name')} />
      </form>
      <ProblemNote problem={images.problem} />
      {images.value?.length === 0 ? <Empty what="snapshots" /> : null}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Size (GiB)</th>
            <th scope="col">State</th>
            <th scope="col">Taken</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(images.value ?? []).map((i) => (
            <tr key={i.metadata.id} data-name={i.metadata.name}>
              <td>{i.metadata.name}</td>
              <td>{i.spec.sizeGiB}</td>
              <td class="status">
                <Badge value={i.status.state} />
                {i.status.state === 'ready' || i.status.state === 'failed' ? null : (
                  <Busy label={`${i.metadata.name}: ${i.status.state}`} />
                )}
              </td>
              <td>{i.metadata.creationTime}</td>
              <td>
                <DeleteButton name={i.metadata.name} onDelete={() => remove(i.metadata.id)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function ConsoleOutput({ path }: { path: ServerPath }) {
  const { api } = useScope();
  const [output, setOutput] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const load = () => {
    setProblem(undefined);
    api('GET', `${path}/consoleoutput?length=100`).then((o) => setOutput(o.contents), setProblem);
  };
  useEffect(load, [api, path]);
  return (
    <Section title="Console output">
      <button type="button" onClick={load}>
        Read the console output again
      </button>
      <ProblemNote problem={problem} />
      {output === undefined ? null : (
        <pre class="console-output" tabIndex={0} aria-label="Console output">
          {output === '' ? '(empty)' : output}
        </pre>
      )}
    </Section>
  );
}
