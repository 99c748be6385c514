/** Regions: the one the console acts in, with what it offers — flavors, images, external networks, volume classes. */
import { Empty, ProblemNote, Section } from '../components.tsx';
import { useScope } from '../context.ts';
import { useInventory } from '../inventory.ts';

export function RegionsView({ regions }: { regions: readonly { metadata: { id: string; name: string } }[] }) {
  const { api, regionID, organizationID } = useScope();
  const { inventory, problem } = useInventory(api, regionID, organizationID);
  const region = regions.find((r) => r.metadata.id === regionID);
  return (
    <>
      <h1>Region {region?.metadata.name ?? regionID ?? ''}</h1>
      {regions.length === 0 ? <Empty what="regions" /> : null}
      <ProblemNote problem={problem} />
      {inventory === undefined ? (
        <p aria-busy="true">Loading the region's inventory…</p>
      ) : (
        <>
          <Section title="Flavors">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">CPUs</th>
                  <th scope="col">Memory (GiB)</th>
                  <th scope="col">Disk (GiB)</th>
                  <th scope="col">Architecture</th>
                </tr>
              </thead>
              <tbody>
                {inventory.flavors.map((f) => (
                  <tr key={f.metadata.id}>
                    <td>{f.metadata.name}</td>
                    <td>{f.spec.cpus}</td>
                    <td>{f.spec.memory}</td>
                    <td>{f.spec.disk}</td>
                    <td>{f.spec.architecture}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          <Section title="Images">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">OS</th>
                  <th scope="col">Size (GiB)</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {inventory.images.map((i) => (
                  <tr key={i.metadata.id}>
                    <td>{i.metadata.name}</td>
                    <td>
                      {i.spec.os.distro} {i.spec.os.version}
                    </td>
                    <td>{i.spec.sizeGiB}</td>
                    <td>{i.status.state}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          <Section title="External networks">
            {inventory.externalNetworks.length === 0 ? <Empty what="external networks" /> : null}
            <ul>
              {inventory.externalNetworks.map((n) => (
                <li key={n.id}>
                  {n.name} <code>{n.id}</code>
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Volume classes">
            <ul>
              {inventory.volumeClasses.map((c) => (
                <li key={c.metadata.id}>{c.metadata.name}</li>
              ))}
            </ul>
          </Section>
        </>
      )}
    </>
  );
}
