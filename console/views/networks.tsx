/** Networks: create one (name, prefix, nameservers) in the signed-in project and region, list them live, delete. */
import { useState } from 'preact/hooks';
import { NetworkV2Create } from '../../src/region/http/schemas/network.ts';
import { query } from '../api.ts';
import { Field, ProblemNote, Section, usePoll } from '../components.tsx';
import { useScope } from '../context.ts';
import { ResourceTable, statusColumn } from '../resource-table.tsx';
import { shownPointers, useSubmit } from '../form.ts';

export function NetworksView() {
  const { api, organizationID, projectID } = useScope();
  const networks = usePoll(
    () => api('GET', `/api/v2/networks${query({ organizationID, projectID })}`),
    [api, organizationID, projectID],
  );
  return (
    <>
      <h1>Networks</h1>
      <CreateNetwork onCreated={networks.refresh} />
      <Section title="Your networks">
        <ResourceTable
          what="networks"
          listed={networks}
          columns={[{ title: 'Prefix', cell: (n) => n.status.prefix }, statusColumn]}
          path={(n) => `/api/v2/networks/${n.metadata.id}`}
        />
      </Section>
    </>
  );
}

const SHOWN = shownPointers('/metadata/name', '/spec/prefix', '/spec/dnsNameservers');

function CreateNetwork({ onCreated }: { onCreated: () => void }) {
  const { api, organizationID, projectID, regionID } = useScope();
  const [name, setName] = useState('');
  const [prefix, setPrefix] = useState('192.168.0.0/24');
  const [nameservers, setNameservers] = useState('');
  const submit = useSubmit(NetworkV2Create);
  const body = () => ({
    metadata: { name },
    spec: {
      organizationId: organizationID,
      projectId: projectID ?? '',
      regionId: regionID ?? '',
      prefix,
      dnsNameservers: nameservers
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    },
  });
  return (
    <Section title="Create a network">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit
            .run(body(), (b) => api('POST', '/api/v2/networks', b))
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
        <Field
          label="Prefix (CIDR)"
          pointer="/spec/prefix"
          errors={submit.errors}
          hint="At least a /24, e.g. 10.0.0.0/24"
        >
          {(p) => <input {...p} value={prefix} onInput={(e) => setPrefix(e.currentTarget.value)} />}
        </Field>
        <Field
          label="DNS nameservers"
          pointer="/spec/dnsNameservers"
          errors={submit.errors}
          hint="IPv4 addresses, separated by spaces or commas"
        >
          {(p) => <input {...p} value={nameservers} onInput={(e) => setNameservers(e.currentTarget.value)} />}
        </Field>
        <ProblemNote problem={submit.problem} shown={SHOWN} />
        <button type="submit" disabled={submit.busy}>
          Create network
        </button>
      </form>
    </Section>
  );
}
