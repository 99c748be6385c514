/**
 * A writer process for crash.test.ts: creates ConfigMaps one at a time in the store file it is given and prints
 * `acked <name>` only after each create has returned, so every printed name is an acknowledged write.
 */
import { openEmbeddedStore } from '../../src/kube/embedded/store.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { systemClock } from '../../src/util/clock.ts';

const [path, countArg, prefix = 'burst'] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: crash-writer.ts STORE [COUNT] [PREFIX]');
const store = openEmbeddedStore(path, { clock: systemClock, garbageCollection: false });
const count = Number(countArg ?? '100000');
for (let i = 0; i < count; i++) {
  const name = `${prefix}-${i}`;
  await store.create(builtin.configMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: { i: String(i) },
  });
  process.stdout.write(`acked ${name}\n`);
}
await store.close();
