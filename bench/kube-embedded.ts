/**
 * Embedded-store figures: create throughput (fsynced commits to a file), listing 10,000 objects, in-process watch
 * delivery latency, and resident memory with 10,000 objects stored. Run alone: `node --import tsx bench/kube-embedded.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openEmbeddedStore } from '../src/kube/embedded/store.ts';
import { builtin } from '../src/kube/resource-type.ts';
import { systemClock } from '../src/util/clock.ts';
import { percentile } from './stats.ts';

const OBJECTS = 10_000;
const WATCH_SAMPLES = 500;

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: { bench: 'yes' } },
  data: { key: 'value', index: name },
});

export async function benchEmbedded(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-bench-'));
  const store = openEmbeddedStore(join(dir, 'store.db'), { clock: systemClock });
  try {
    const start = performance.now();
    for (let i = 0; i < OBJECTS; i++) await store.create(builtin.configMap, configMap(`cm-${i}`));
    const createSeconds = (performance.now() - start) / 1000;

    const listTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const list = await store.list(builtin.configMap, { namespace: 'default' });
      listTimes.push(performance.now() - t);
      if (list.items.length !== OBJECTS) throw new Error(`listed ${list.items.length} objects`);
    }
    const rss = process.memoryUsage().rss;

    const abort = new AbortController();
    const latencies: number[] = [];
    const sentAt = new Map<string, number>();
    const list = await store.list(builtin.secret, { namespace: 'default' });
    const watching = (async () => {
      for await (const e of store.watch(builtin.secret, {
        namespace: 'default',
        resourceVersion: list.resourceVersion,
        signal: abort.signal,
      })) {
        const t0 = sentAt.get(e.object.metadata.name);
        if (t0 !== undefined) latencies.push(performance.now() - t0);
        if (latencies.length === WATCH_SAMPLES) return;
      }
    })();
    for (let i = 0; i < WATCH_SAMPLES; i++) {
      const name = `w-${i}`;
      sentAt.set(name, performance.now());
      await store.create(builtin.secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: 'default' },
      });
    }
    await watching;
    abort.abort();
    return {
      'creates/s': Math.round(OBJECTS / createSeconds),
      'list 10,000 objects (ms)': Math.round(Math.min(...listTimes)),
      'watch delivery p50 (ms)': percentile(latencies, 50),
      'watch delivery p99 (ms)': percentile(latencies, 99),
      'RSS with 10,000 objects (MiB)': Math.round(rss / 2 ** 20),
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.table(await benchEmbedded());
}
