/**
 * Load balancers: create one on a network (public IP, one listener with its pool's members and health monitor; more
 * listeners through the API), watch each live — VIP, public IP, conditions, listeners and members — and delete.
 */
import { useState } from 'preact/hooks';
import { LoadBalancerV2Create } from '../../src/region/http/schemas/load-balancer.ts';
import type { NetworkV2Read } from '../../src/region/http/schemas/network.ts';
import { Field, Options, ProblemNote, Section } from '../components.tsx';
import { useLive } from '../live.ts';
import { useScope } from '../context.ts';
import { networkColumn, ResourceTable, statusColumn } from '../resource-table.tsx';
import { shownPointers, useSubmit } from '../form.ts';

export function LoadBalancersView() {
  const { loadbalancers: balancers, networks } = useLive('loadbalancers', 'networks');
  return (
    <>
      <h1>Load balancers</h1>
      <CreateLoadBalancer networks={networks.value ?? []} onCreated={balancers.refresh} />
      <Section title="Your load balancers">
        <ResourceTable
          what="load balancers"
          listed={balancers}
          columns={[
            statusColumn,
            networkColumn(networks.value ?? []),
            {
              title: 'Addresses',
              cell: (b) => (
                <>
                  {b.status.vipAddress ?? '—'}
                  {b.status.publicIP === undefined ? null : ` / ${b.status.publicIP}`}
                </>
              ),
            },
            {
              title: 'Listeners',
              cell: (b) => (
                <ul>
                  {b.spec.listeners.map((l) => (
                    <li key={l.name}>
                      {l.name}: {l.protocol}/{l.port} → {l.pool.members.length} member(s)
                      {l.pool.members.map((m) => ` ${m.address}:${String(m.port)}`).join(',')}
                      {l.pool.healthCheck === undefined ? '' : ', health monitor'}
                    </li>
                  ))}
                </ul>
              ),
            },
          ]}
          path={(b) => `/api/v2/loadbalancers/${b.metadata.id}`}
          href={(b) => `/load-balancers/${b.metadata.id}`}
        />
      </Section>
    </>
  );
}

const SHOWN = shownPointers('/metadata/name', '/spec/networkId', '/spec/listeners/0');

/** `10.0.0.5:8080 10.0.0.6:8080` → members; what does not parse is kept as typed, for the schema to name. */
function membersOf(text: string): { address: string; port: number }[] {
  return text
    .split(/[\s,]+/)
    .filter((s) => s !== '')
    .map((entry) => {
      const [address = '', port = ''] = entry.split(':');
      return { address, port: Number(port) };
    });
}

function CreateLoadBalancer({ networks, onCreated }: { networks: readonly NetworkV2Read[]; onCreated: () => void }) {
  const { api } = useScope();
  const [name, setName] = useState('');
  const [networkID, setNetworkID] = useState('');
  const [publicIP, setPublicIP] = useState(false);
  const [listener, setListener] = useState('http');
  const [protocol, setProtocol] = useState<'tcp' | 'udp'>('tcp');
  const [port, setPort] = useState('80');
  const [members, setMembers] = useState('');
  const [healthCheck, setHealthCheck] = useState(false);
  const network = networkID === '' ? (networks[0]?.metadata.id ?? '') : networkID;
  const submit = useSubmit(LoadBalancerV2Create);
  const body = () => ({
    metadata: { name },
    spec: {
      networkId: network,
      ...(publicIP ? { publicIP } : {}),
      listeners: [
        {
          name: listener,
          protocol,
          port: Number(port),
          pool: { members: membersOf(members), ...(healthCheck ? { healthCheck: {} } : {}) },
        },
      ],
    },
  });
  return (
    <Section title="Create a load balancer">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit
            .run(body(), (b) => api('POST', '/api/v2/loadbalancers', b))
            .then((ok) => {
              if (!ok) return;
              setName('');
              onCreated();
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
        <Field label="Public IP" pointer="/spec/publicIP" errors={submit.errors}>
          {(p) => (
            <input {...p} type="checkbox" checked={publicIP} onChange={(e) => setPublicIP(e.currentTarget.checked)} />
          )}
        </Field>
        <fieldset>
          <legend>Listener</legend>
          <Field label="Listener name" pointer="/spec/listeners/0/name" errors={submit.errors}>
            {(p) => <input {...p} value={listener} onInput={(e) => setListener(e.currentTarget.value)} />}
          </Field>
          <Field label="Protocol" pointer="/spec/listeners/0/protocol" errors={submit.errors}>
            {(p) => (
              <select {...p} value={protocol} onChange={(e) => setProtocol(e.currentTarget.value as 'tcp' | 'udp')}>
                <option value="tcp">TCP</option>
                <option value="udp">UDP</option>
              </select>
            )}
          </Field>
          <Field label="Port" pointer="/spec/listeners/0/port" errors={submit.errors}>
            {(p) => <input {...p} inputMode="numeric" value={port} onInput={(e) => setPort(e.currentTarget.value)} />}
          </Field>
          <Field
            label="Pool members"
            pointer="/spec/listeners/0/pool/members"
            errors={submit.errors}
            hint="address:port, separated by spaces, e.g. 192.168.0.10:8080"
          >
            {(p) => <input {...p} value={members} onInput={(e) => setMembers(e.currentTarget.value)} />}
          </Field>
          <Field label="Health monitor" pointer="/spec/listeners/0/pool/healthCheck" errors={submit.errors}>
            {(p) => (
              <input
                {...p}
                type="checkbox"
                checked={healthCheck}
                onChange={(e) => setHealthCheck(e.currentTarget.checked)}
              />
            )}
          </Field>
        </fieldset>
        <ProblemNote problem={submit.problem} shown={SHOWN} />
        <button type="submit" disabled={submit.busy || network === ''}>
          Create load balancer
        </button>
      </form>
    </Section>
  );
}
