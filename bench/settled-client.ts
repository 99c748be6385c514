/**
 * The convergence scenario's wait, from a process of its own: `GET <url>` every 100 ms until it lists `count`
 * servers, every one provisioned and running. Run in the bench's process, parsing 1,000 servers ten times a second
 * cost about 1.5 ms of CPU per server, counted as the control plane's; here it is counted apart (the answer's
 * serialisation stays the control plane's).
 * It starts polling when a line arrives on its stdin, so its own start-up (the TypeScript loader) is done by then
 * and not counted.
 *   SETTLED_URL=… SETTLED_AUTHORIZATION='Bearer …' node --import tsx bench/settled-client.ts 1000
 * Prints `{ "cpuMs": n, "polls": n }` once settled; exits non-zero after 10 minutes.
 */
import { request } from 'node:http';
import { createInterface } from 'node:readline';

interface Listed {
  readonly metadata: { readonly provisioningStatus: string };
  readonly status: Record<string, unknown>;
}

function get(url: string, authorization: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { authorization } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolve(body);
        else reject(new Error(`GET ${url}: ${String(res.statusCode)} ${body.slice(0, 500)}`));
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

const url = process.env['SETTLED_URL'] ?? '';
const authorization = process.env['SETTLED_AUTHORIZATION'] ?? '';
const count = Number(process.argv[2] ?? '0');
await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
const before = process.cpuUsage();
const started = performance.now();
let polls = 0;
for (;;) {
  polls++;
  const all = JSON.parse(await get(url, authorization)) as Listed[];
  if (
    all.length === count &&
    all.every((s) => s.metadata.provisioningStatus === 'provisioned' && s.status['powerState'] === 'Running')
  )
    break;
  if (performance.now() - started > 600_000) throw new Error('not converged after 600 s');
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const used = process.cpuUsage(before);
process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, polls })}\n`);
