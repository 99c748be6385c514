/** Volumes: create one on a network (class and size within the class's bounds), list them live, delete. */
import { useState } from 'preact/hooks';
import { VolumeV2Create } from '../../src/region/http/schemas/inventory.ts';
import { Field, Options, ProblemNote, Section } from '../components.tsx';
import { useLive } from '../live.ts';
import { useScope } from '../context.ts';
import { networkColumn, ResourceTable, statusColumn } from '../resource-table.tsx';
import { shownPointers, useSubmit } from '../form.ts';
import { useInventory } from '../inventory.ts';

export function VolumesView() {
  const { api, organizationID, regionID } = useScope();
  const { volumes, networks } = useLive('volumes', 'networks');
  const { inventory } = useInventory(api, regionID, organizationID);
  const [name, setName] = useState('');
  const [networkID, setNetworkID] = useState('');
  const [volumeClassID, setVolumeClassID] = useState('');
  const [size, setSize] = useState('10');
  const network = networkID === '' ? (networks.value?.[0]?.metadata.id ?? '') : networkID;
  const volumeClass = volumeClassID === '' ? (inventory?.volumeClasses[0]?.metadata.id ?? '') : volumeClassID;
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
              <select {...p} value={network} onChange={(e) => setNetworkID(e.currentTarget.value)}>
                <Options items={networks.value ?? []} />
              </select>
            )}
          </Field>
          <Field label="Volume class" pointer="/spec/volumeClassId" errors={submit.errors}>
            {(p) => (
              <select {...p} value={volumeClass} onChange={(e) => setVolumeClassID(e.currentTarget.value)}>
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
          columns={[
            { title: 'Size (GiB)', cell: (v) => v.spec.sizeGiB },
            statusColumn,
            networkColumn(networks.value ?? []),
          ]}
          path={(v) => `/api/v2/volumes/${v.metadata.id}`}
          href={(v) => `/volumes/${v.metadata.id}`}
        />
      </Section>
    </>
  );
}
