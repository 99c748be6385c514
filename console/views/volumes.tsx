/** Volumes: create one on a network (class and size within the class's bounds), list them live, delete. */
import { useState } from 'preact/hooks';
import { VolumeV2Create } from '../../src/region/http/schemas/inventory.ts';
import { query } from '../api.ts';
import { Field, Options, ProblemNote, Section, usePoll } from '../components.tsx';
import { useScope } from '../context.ts';
import { ResourceTable, statusColumn } from '../resource-table.tsx';
import { shownPointers, useSubmit } from '../form.ts';
import { useInventory } from '../inventory.ts';

export function VolumesView() {
  const { api, organizationID, projectID, regionID } = useScope();
  const scope = query({ organizationID, projectID });
  const volumes = usePoll(() => api('GET', `/api/v2/volumes${scope}`), [api, scope]);
  const networks = usePoll(() => api('GET', `/api/v2/networks${scope}`), [api, scope]);
  const { inventory } = useInventory(api, regionID, organizationID);
  const [name, setName] = useState('');
  const [networkId, setNetworkId] = useState('');
  const [volumeClassId, setVolumeClassId] = useState('');
  const [size, setSize] = useState('10');
  const network = networkId === '' ? (networks.value?.[0]?.metadata.id ?? '') : networkId;
  const volumeClass = volumeClassId === '' ? (inventory?.volumeClasses[0]?.metadata.id ?? '') : volumeClassId;
  const submit = useSubmit(VolumeV2Create);
  return (
    <>
      <h1>Volumes</h1>
      <Section title="Create a volume">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const body = {
              metadata: { name },
              spec: { networkId: network, volumeClassId: volumeClass, sizeGiB: Number(size) },
            };
            void submit
              .run(body, (b) => api('POST', '/api/v2/volumes', b))
              .then((ok) => {
                if (!ok) return;
                setName('');
                volumes.refresh();
              });
          }}
        >
          <Field label="Name" pointer="/metadata/name" errors={submit.errors}>
            {(p) => <input {...p} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
          </Field>
          <Field label="Network" pointer="/spec/networkId" errors={submit.errors}>
            {(p) => (
              <select {...p} value={network} onChange={(e) => setNetworkId(e.currentTarget.value)}>
                <Options items={networks.value ?? []} />
              </select>
            )}
          </Field>
          <Field label="Volume class" pointer="/spec/volumeClassId" errors={submit.errors}>
            {(p) => (
              <select {...p} value={volumeClass} onChange={(e) => setVolumeClassId(e.currentTarget.value)}>
                <Options items={inventory?.volumeClasses ?? []} />
              </select>
            )}
          </Field>
          <Field label="Size (GiB)" pointer="/spec/sizeGiB" errors={submit.errors}>
            {(p) => <input {...p} inputMode="numeric" value={size} onInput={(e) => setSize(e.currentTarget.value)} />}
          </Field>
          <ProblemNote
            problem={submit.problem}
            shown={shownPointers('/metadata/name', '/spec/networkId', '/spec/volumeClassId', '/spec/sizeGiB')}
          />
          <button type="submit" disabled={submit.busy || network === ''}>
            Create volume
          </button>
        </form>
      </Section>
      <Section title="Your volumes">
        <ResourceTable
          what="volumes"
          listed={volumes}
          columns={[{ title: 'Size (GiB)', cell: (v) => v.spec.sizeGiB }, statusColumn]}
          path={(v) => `/api/v2/volumes/${v.metadata.id}`}
        />
      </Section>
    </>
  );
}
