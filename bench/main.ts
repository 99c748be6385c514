/**
 * `npm run bench`: every benchmark, one after another in this process, printed as tables and written to
 * bench/results.json. Figures, not assertions: these machines are noisy, so compare runs taken together.
 */
import { writeFileSync } from 'node:fs';
import { benchEmulator } from './emulator.ts';
import { benchImageCache } from './image-cache.ts';
import { benchEmbedded } from './kube-embedded.ts';

const benches: Record<string, () => Promise<Record<string, number>>> = {
  'kube embedded store': benchEmbedded,
  'OpenStack emulator': benchEmulator,
  'image cache': benchImageCache,
};

const results: Record<string, Record<string, number>> = {};
for (const [name, run] of Object.entries(benches)) {
  process.stdout.write(`\n${name}\n`);
  results[name] = await run();
  console.table(results[name]);
}
writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`,
);
