/**
 * The page of a network, security group, load balancer or volume (`/networks/<id>`, …): its name and id, its
 * conditions now and their history as its Events, and what hangs off it (a network's servers, security groups, load
 * balancers and volumes), live from the page's one watch stream. A server has its own, richer page.
 */
import type { ComponentChildren } from 'preact';
import { Conditions, Empty, ProblemNote, Section } from '../components.tsx';
import { useLive } from '../live.ts';
import { ObjectEvents } from './object-events.tsx';

const KINDS = {
  networks: { word: 'Network', page: '/networks', title: 'Networks' },
  securitygroups: { word: 'Security group', page: '/security-groups', title: 'Security groups' },
  loadbalancers: { word: 'Load balancer', page: '/load-balancers', title: 'Load balancers' },
  volumes: { word: 'Volume', page: '/volumes', title: 'Volumes' },
} as const;

export type DetailCollection = keyof typeof KINDS;

export function ResourceDetailView({ collection, id }: { collection: DetailCollection; id: string }) {
  const live = useLive('networks', 'securitygroups', 'servers', 'loadbalancers', 'volumes');
  const kind = KINDS[collection];
  const list = live[collection];
  const object = list.value?.find((o) => o.metadata.id === id);
  if (list.value !== undefined && object === undefined) {
    return (
      <>
        <h1>{kind.word} not found</h1>
        <p>
          No {kind.word.toLowerCase()} <code>{id}</code> in this project: it may have been deleted.{' '}
          <a href={kind.page}>All {kind.title.toLowerCase()}</a>
        </p>
      </>
    );
  }
  if (object === undefined) return <p aria-busy="true">Loading…</p>;
  const onNetwork = <T extends { metadata: { id: string; name: string }; status: { networkId: string } }>(
    items: readonly T[] | undefined,
  ) => (items ?? []).filter((o) => o.status.networkId === id);
  const named = (title: string, items: readonly { metadata: { id: string; name: string } }[], page?: string) => (
    <Section title={title}>
      {items.length === 0 ? <Empty what={title.toLowerCase()} /> : null}
      <ul>
        {items.map((o) => (
          <li key={o.metadata.id}>
            {page === undefined ? o.metadata.name : <a href={`${page}/${o.metadata.id}`}>{o.metadata.name}</a>}
          </li>
        ))}
      </ul>
    </Section>
  );
  let related: ComponentChildren;
  if (collection === 'networks') {
    related = (
      <>
        {named('Servers', onNetwork(live.servers.value), '/servers')}
        {named('Security groups', onNetwork(live.securitygroups.value), '/security-groups')}
        {named('Load balancers', onNetwork(live.loadbalancers.value), '/load-balancers')}
        {named('Volumes', onNetwork(live.volumes.value), '/volumes')}
      </>
    );
  } else {
    const networkID = (object as { status: { networkId: string } }).status.networkId;
    const network = live.networks.value?.find((n) => n.metadata.id === networkID);
    related = named('Network', network === undefined ? [] : [network], '/networks');
  }
  return (
    <>
      <p class="crumbs">
        <a href={kind.page}>{kind.title}</a> /
      </p>
      <h1>
        {kind.word} {object.metadata.name} <code class="secondary">{object.metadata.id}</code>
      </h1>
      <ProblemNote problem={list.problem} />
      <Section title="Conditions">
        <Conditions meta={object.metadata} />
      </Section>
      <ObjectEvents path={`/api/v2/${collection}/${id}`} changes={live.changes} />
      {related}
    </>
  );
}
