/**
 * The convergence scenario's clients, from a process of their own, so that what they cost is not counted as the
 * control plane's: the 16 concurrent clients' `POST /api/v2/servers` (as a fleet tool would create them), then the
 * wait, `GET /api/v2/servers` every 100 ms until it lists every server provisioned and running. In the bench's
 * process the wait's parsing of 1,000 servers ten times a second cost about 1.5 ms of CPU per server and the creates'
 * client about 1 ms, both counted as the control plane's; the answers' serialisation stays the control plane's.
 * It says `{ "ready": true }` once loaded and starts when a line arrives on its stdin, so its own start-up (the
 * TypeScript loader) is not in the window. Its input, in WAVE_PLAN (JSON): the servers' count and name prefix, the networks to spread them over, the
 * flavor and image. It prints one JSON line when the last create was answered (`{ "posted": true, "ids": [...] }`)
 * and one when all are settled (`{ "createCpuMs": n, "waitCpuMs": n, "polls": n }`); exits non-zero after 10 minutes.
 *   WAVE_API=http://… WAVE_AUTHORIZATION='Bearer …' WAVE_PLAN='{…}' node --import tsx bench/wave-client.ts
 */
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';

interface Plan {
  readonly count: number;
  readonly prefix: string;
  readonly networks: readonly string[];
  readonly flavorId: string;
  readonly imageId: string;
  readonly clients: number;
}

interface Listed {
  readonly metadata: { readonly id: string; readonly provisioningStatus: string };
  readonly status: Record<string, unknown>;
}

const api = process.env['WAVE_API'] ?? '';
const authorization = process.env['WAVE_AUTHORIZATION'] ?? '';
const plan = JSON.parse(process.env['WAVE_PLAN'] ?? '{}') as Plan;
const agent = new Agent({ keepAlive: true, maxSockets: plan.clients });

function call(method: string, path: string, body?: unknown): Promise<string> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { authorization };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request(`${api}${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
        if (ok) resolve(text);
        else reject(new Error(`${method} ${path}: ${String(res.statusCode)} ${text.slice(0, 500)}`));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function createAll(): Promise<string[]> {
  const ids = new Array<string>(plan.count);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < plan.count; i = next++) {
      const created = JSON.parse(
        await call('POST', '/api/v2/servers', {
          metadata: { name: `${plan.prefix}-${String(i)}` },
          spec: {
            networkId: plan.networks[i % plan.networks.length],
            flavorId: plan.flavorId,
            imageId: plan.imageId,
          },
        }),
      ) as Listed;
      ids[i] = created.metadata.id;
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.clients, plan.count) }, lane));
  return ids;
}

const settled = (s: Listed): boolean =>
  s.metadata.provisioningStatus === 'provisioned' && s.status['powerState'] === 'Running';

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
const before = process.cpuUsage();
const started = performance.now();
const ids = await createAll();
const created = process.cpuUsage(before);
process.stdout.write(`${JSON.stringify({ posted: true, ids })}\n`);
let polls = 0;
for (;;) {
  polls++;
  const all = JSON.parse(await call('GET', '/api/v2/servers')) as Listed[];
  if (all.length === plan.count && all.every(settled)) break;
  if (performance.now() - started > 600_000) throw new Error('not converged after 600 s');
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const waited = process.cpuUsage(before);
const ms = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
process.stdout.write(`${JSON.stringify({ createCpuMs: ms(created), waitCpuMs: ms(waited) - ms(created), polls })}\n`);
agent.destroy();
