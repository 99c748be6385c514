/**
 * Durability and multi-process behaviour of the embedded store: an acknowledged write survives kill -9 of its
 * writer, and a write by a second process reaches this process's watch.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openEmbeddedStore } from '../../src/kube/embedded/store.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { systemClock } from '../../src/util/clock.ts';
import { collect } from './fixtures.ts';

const writer = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'openregion-crash-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

function startWriter(path: string, count: number, prefix: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', writer, path, String(count), prefix], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      resolve(code);
    }),
  );
  return { child, lines, exited };
}

describe('embedded store across processes', () => {
  it('keeps every acknowledged write when the writer is killed with SIGKILL mid-burst', async () => {
    const path = join(dir, 'crash.db');
    // Open once so the writer does not race this process creating the schema.
    await openEmbeddedStore(path, { clock: systemClock }).close();
    const { child, lines, exited } = startWriter(path, 100_000, 'burst');
    const acked: string[] = [];
    for await (const line of lines) {
      const name = line.replace(/^acked /, '');
      acked.push(name);
      if (acked.length === 200) child.kill('SIGKILL');
    }
    await exited;
    assert.ok(acked.length >= 200, `the writer acknowledged ${acked.length} writes before it died`);
    const store = openEmbeddedStore(path, { clock: systemClock });
    try {
      const present = new Set(
        (await store.list(builtin.configMap, { namespace: 'default' })).items.map((o) => o.metadata.name),
      );
      const missing = acked.filter((n) => !present.has(n));
      assert.deepEqual(missing, [], 'acknowledged writes lost');
      assert.ok(present.size < 100_000, 'the writer was killed before it finished');
    } finally {
      await store.close();
    }
  });

  it("delivers another process's write to this process's watch", async (t) => {
    const path = join(dir, 'watch.db');
    const store = openEmbeddedStore(path, { clock: systemClock, pollIntervalMs: 100 });
    try {
      const list = await store.list(builtin.configMap, { namespace: 'default' });
      let ackedAt = 0;
      const watching = collect(
        store,
        builtin.configMap,
        { namespace: 'default', resourceVersion: list.resourceVersion },
        (es) => es.some((e) => e.object.metadata.name === 'remote-0'),
        20_000,
      );
      const { lines, exited } = startWriter(path, 1, 'remote');
      for await (const line of lines) if (line === 'acked remote-0') ackedAt = performance.now();
      const events = await watching;
      const latency = ackedAt === 0 ? NaN : performance.now() - ackedAt;
      t.diagnostic(
        `cross-process watch latency after the writer's acknowledgement: ${latency.toFixed(0)} ms (poll every 100 ms)`,
      );
      assert.equal(await exited, 0);
      assert.equal(events.at(-1)?.type, 'ADDED');
    } finally {
      await store.close();
    }
  });
});
