/**
 * `GET <url>` SAMPLES times in a row from a process of its own, as a user's client lists, timed from the request to
 * the answer's last byte; then the time to parse it as JSON, apart. The bench's own process holds the 9,000 objects
 * it wrote and its garbage, so its collector's pauses would be counted as the API's latency.
 *   LIST_URL=… LIST_AUTHORIZATION='Bearer …' node --import tsx bench/list-client.ts 30
 * Prints `{ "receivedMs": [...], "parsedMs": [...], "bytes": n }`.
 */
import { request } from 'node:http';

function get(url: string, authorization: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { authorization } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        if (res.statusCode === 200) resolve(body);
        else reject(new Error(`GET ${url}: ${String(res.statusCode)} ${body.toString().slice(0, 500)}`));
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

const url = process.env['LIST_URL'] ?? '';
const authorization = process.env['LIST_AUTHORIZATION'] ?? '';
const samples = Number(process.argv[2] ?? '30');
const receivedMs: number[] = [];
const parsedMs: number[] = [];
let bytes = 0;
for (let i = 0; i < samples; i++) {
  const start = performance.now();
  const body = await get(url, authorization);
  const received = performance.now();
  JSON.parse(body.toString('utf8'));
  receivedMs.push(received - start);
  parsedMs.push(performance.now() - received);
  bytes = body.length;
}
process.stdout.write(`${JSON.stringify({ receivedMs, parsedMs, bytes })}\n`);
