/**
 * Convergence: `servers` servers in 10 identity projects, created through the REST API by 16 concurrent clients
 * against the emulator (in its own process), until all are provisioned and running; beside it, in the same run
 * against the same emulator, the limit (limit.ts). Figures: wall time of each and their ratio, the API's create
 * throughput, OpenStack calls per server by service and verb, and calls per server beyond the limit, counted until
 * the system is quiet (no call but the monitor's for 12 s: the controllers' re-checks still pending at convergence
 * count too; the monitor's polls after it do not); the event loop's delay and the control plane's CPU while it
 * converged. The identities and networks (one per project) are made before the count starts; their calls are
 * reported per project. The system is kept for the steady-state and rebuild scenarios.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { DEFAULT_DELAY_MS as NOVA_DELAYS } from '../src/emulator/nova/transitions.ts';
import { perUnitByVerb, round, totalOf } from './emulator-calls.ts';
import { CLIENTS, keepFleet, MONITOR_LIST, PROJECTS, quiet, startFleetSystem, withoutLaterPolls } from './fleet.ts';
import { runLimit } from './limit.ts';
import { cpuDuring, judged, loopDelayDuring } from './stats.ts';
import type { BenchSystem } from './system.ts';

const NOVA_CREATE = 'compute POST /v2.1/servers';

export async function benchConvergence(servers: number): Promise<Record<string, number | string>> {
  const system = await startFleetSystem();
  try {
    const setupCalls = totalOf(await system.calls.take());
    const limit = await runLimit(system.calls.authUrl, system.calls, PROJECTS, servers);

    await system.calls.take();
    const emulatorBefore = await system.calls.usage();
    const wave = waveClient(system, servers);
    await wave.ready;
    const start = performance.now();
    let postedMs = 0;
    let ids: readonly string[] = [];
    const run = await loopDelayDuring(() =>
      cpuDuring(`convergence-${String(servers)}`, async () => {
        ids = await wave.start();
        postedMs = performance.now() - start;
        return wave.settled();
      }),
    );
    const client = run.result.result;
    const wallMs = performance.now() - start;
    const phases = await phasesOf(system, start, limit.wallMs);
    const emulatorAfter = await system.calls.usage();
    const provisionedCalls = await system.calls.snapshot();
    await quiet(system); // the re-checks still pending when the last server converged
    const calls = withoutLaterPolls(await system.calls.take(), provisionedCalls);
    keepFleet({ system, servers: ids });

    const perServer = totalOf(calls) / servers;
    const limitPerServer = totalOf(limit.calls) / servers;
    return {
      'wall time, all provisioned and running (s)': round(wallMs / 1000),
      [`of which REST API creates, ${String(CLIENTS)} clients (s)`]: round(postedMs / 1000),
      'API creates per second': round(servers / (postedMs / 1000), 1),
      'limit wall time (s)': round(limit.wallMs / 1000),
      // #40's targets: within 2.5 times the limit at 1,000 servers, 3 times at 100 (fixed costs weigh more there).
      'wall time / limit': judged(round(wallMs / limit.wallMs), '≤', servers >= 1_000 ? 2.5 : 3),
      ...phases,
      'OpenStack calls per server, until all provisioned': round(totalOf(provisionedCalls) / servers),
      'OpenStack calls per server, until quiet': judged(round(perServer), '≤', 5),
      'limit calls per server': round(limitPerServer),
      'calls per server beyond the limit, until quiet': round(perServer - limitPerServer),
      'event-loop delay p99 while converging (ms)': judged(run.p99Ms, '<', 50),
      'event-loop delay max while converging (ms)': run.maxMs,
      'control-plane CPU per server (ms)': round(run.result.cpuMs / servers),
      "the bench's 16 clients' creates (their own process): CPU per server (ms)": round(client.createCpuMs / servers),
      "the bench's wait, listing every 100 ms (the same process): CPU per server (ms)": round(
        client.waitCpuMs / servers,
      ),
      'emulator CPU per server (ms)': round((emulatorAfter.cpuMs - emulatorBefore.cpuMs) / servers),
      'identity + network setup calls per project': round(setupCalls / PROJECTS),
      ...prefixed('per server: ', perUnitByVerb(calls, servers)),
      ...prefixed('limit per server: ', perUnitByVerb(limit.calls, servers)),
    };
  } catch (error) {
    await system.stop();
    throw error;
  }
}

/**
 * Where the wall time went, read from when the emulator received the calls: until the last server's create reached
 * Nova, until its build ended, and until the monitor's first poll after that, whose status write wakes the last
 * server's final pass (ADR 0030). What follows the build is the wait the limit never has.
 */
async function phasesOf(system: BenchSystem, start: number, limitMs: number): Promise<Record<string, number | string>> {
  const since = (wallClockMs: number) => wallClockMs - (performance.timeOrigin + start);
  const creates = (await system.calls.times(NOVA_CREATE)).map(since);
  const polls = (await system.calls.times(MONITOR_LIST)).map(since);
  const lastCreate = creates.reduce((a, b) => Math.max(a, b), 0);
  const lastBuilt = lastCreate + NOVA_DELAYS['nova.build'];
  const nextPoll = polls.find((t) => t >= lastBuilt);
  return {
    'of which until the last create reached Nova (s)': round(lastCreate / 1000),
    [`of which until its build ended (s, ${String(NOVA_DELAYS['nova.build'])} ms later)`]: round(lastBuilt / 1000),
    "of which until the monitor's next poll after it (s)": nextPoll === undefined ? 'none' : round(nextPoll / 1000),
    'wall time to the last build / limit': round(lastBuilt / limitMs),
  };
}

interface WaveResult {
  readonly createCpuMs: number;
  readonly waitCpuMs: number;
  readonly polls: number;
}

/**
 * The creates and the wait until every server is provisioned and running, in a process of their own
 * (wave-client.ts): started first, so its start-up is done (`ready`), and told to begin by `start`, which resolves
 * with the servers' ids once the last create was answered.
 */
function waveClient(
  system: BenchSystem,
  servers: number,
): { ready: Promise<void>; start: () => Promise<readonly string[]>; settled: () => Promise<WaveResult> } {
  const plan = {
    count: servers,
    prefix: 'bench',
    networks: system.networks,
    flavorId: system.flavorId,
    imageId: system.imageIds[0],
    clients: CLIENTS,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./wave-client.ts', import.meta.url).pathname], {
    env: {
      ...process.env,
      WAVE_API: system.control.api,
      WAVE_AUTHORIZATION: system.authorization,
      WAVE_PLAN: JSON.stringify(plan),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // One line per stage, in order; the child's end before a stage's line fails that stage.
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async <T>(stage: string): Promise<T> => {
    const line = await lines.next();
    if (line.done === true) throw new Error(`wave-client ended before ${stage} (exit ${String(child.exitCode)})`);
    return JSON.parse(line.value) as T;
  };
  const ready = next<{ ready: true }>('ready').then(() => undefined);
  return {
    ready,
    start: async () => {
      child.stdin.end('go\n');
      return (await next<{ ids: string[] }>('the creates')).ids;
    },
    settled: () => next<WaveResult>('settling'),
  };
}

const prefixed = (prefix: string, figures: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(figures).map(([k, v]) => [`${prefix}${k}`, v]));
