/**
 * Topology: the signed-in project's resources as a picture — networks, the security groups and servers on them,
 * load balancers and their members, volumes and public IPs — drawn as plain SVG from the view's one watch stream,
 * so it changes as they do. Each server links to its page. The same relations follow as a list, for anyone who
 * does not read the picture.
 */
import { ProblemNote, Section } from '../components.tsx';
import { useLive } from '../live.ts';
import { topologyOf, type NodeKind, type TopologyNode } from '../topology.ts';

const WIDTH = 190;
const HEIGHT = 46;
const COLUMN = 250;
const ROW = 64;
const TOP = 40;
const HEADINGS = ['Networks', 'Security groups', 'Servers', 'Load balancers', 'Volumes, public IPs'];
const KINDS: Readonly<Record<NodeKind, string>> = {
  network: 'network',
  securitygroup: 'security group',
  server: 'server',
  loadbalancer: 'load balancer',
  volume: 'volume',
  publicip: 'public IP',
};

const x = (n: TopologyNode) => 10 + n.column * COLUMN;
const y = (n: TopologyNode) => TOP + n.row * ROW;
const tone = (status: string) =>
  status === 'provisioned' || status === 'allocated' ? 'ok' : status === 'error' ? 'bad' : 'busy';

export function TopologyView() {
  const live = useLive('networks', 'securitygroups', 'servers', 'loadbalancers', 'volumes');
  const { networks, securitygroups, servers, loadbalancers, volumes } = live;
  const loaded = [networks, securitygroups, servers, loadbalancers, volumes].every((l) => l.value !== undefined);
  const graph = topologyOf({
    networks: networks.value ?? [],
    securitygroups: securitygroups.value ?? [],
    servers: servers.value ?? [],
    loadbalancers: loadbalancers.value ?? [],
    volumes: volumes.value ?? [],
  });
  const byKey = new Map(graph.nodes.map((n) => [n.key, n]));
  const rows = Math.max(1, ...graph.nodes.map((n) => n.row + 1));
  const height = TOP + rows * ROW;
  return (
    <>
      <h1>Topology</h1>
      <ProblemNote problem={networks.problem} />
      {!loaded ? <p aria-busy="true">Loading the project's resources…</p> : null}
      {loaded && graph.nodes.length === 0 ? <p class="empty">No resources in this project yet.</p> : null}
      <Section title="Picture">
        <div class="topology-frame">
          <svg
            class="topology"
            viewBox={`0 0 ${String(COLUMN * 4 + WIDTH + 20)} ${String(height)}`}
            width={COLUMN * 4 + WIDTH + 20}
            height={height}
            aria-labelledby="topology-title"
          >
            <title id="topology-title">
              The project's resources: {String(graph.nodes.length)} of them, {String(graph.edges.length)} relations
            </title>
            {HEADINGS.map((h, i) => (
              <text key={h} class="heading" x={10 + i * COLUMN} y={20}>
                {h}
              </text>
            ))}
            {graph.edges.map((e) => {
              const [from, to] = [byKey.get(e.from), byKey.get(e.to)];
              if (from === undefined || to === undefined) return null;
              const [x1, y1] = [x(from) + WIDTH, y(from) + HEIGHT / 2];
              const [x2, y2] = [x(to), y(to) + HEIGHT / 2];
              const bend = Math.max(30, (x2 - x1) / 2);
              return (
                <path
                  key={`${e.from}>${e.to}`}
                  class="edge"
                  data-from={from.name}
                  data-to={to.name}
                  d={`M ${String(x1)} ${String(y1)} C ${String(x1 + bend)} ${String(y1)}, ${String(x2 - bend)} ${String(y2)}, ${String(x2)} ${String(y2)}`}
                />
              );
            })}
            {graph.nodes.map((n) => {
              const box = (
                <g class={`node node-${n.kind} tone-${tone(n.status)}`} data-key={n.key} data-name={n.name}>
                  <rect x={x(n)} y={y(n)} width={WIDTH} height={HEIGHT} rx={6} />
                  <text x={x(n) + 10} y={y(n) + 19} class="name">
                    {n.name.length > 24 ? `${n.name.slice(0, 23)}…` : n.name}
                  </text>
                  <text x={x(n) + 10} y={y(n) + 36} class="kind">
                    {KINDS[n.kind]} · {n.status}
                  </text>
                </g>
              );
              return n.href === undefined ? (
                <g key={n.key}>{box}</g>
              ) : (
                <a key={n.key} href={n.href}>
                  {box}
                </a>
              );
            })}
          </svg>
        </div>
      </Section>
      <Section title="Relations">
        <ul class="relations">
          {graph.edges.map((e) => (
            <li key={`${e.from}>${e.to}`}>
              {KINDS[byKey.get(e.to)?.kind ?? 'network']} <strong>{byKey.get(e.to)?.name}</strong> {e.label}{' '}
              {KINDS[byKey.get(e.from)?.kind ?? 'network']} <strong>{byKey.get(e.from)?.name}</strong>
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
