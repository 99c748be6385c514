/**
 * The built-in emulator in a process of its own, seeded with the demo cloud, so the bench's memory and CPU figures
 * are the control plane's alone. Its received calls are counted where they arrive (emulator-calls.ts) and read
 * over IPC: `RemoteEmulator` is the bench's side, this file run as a child is the emulator's.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { seedDemoCloud } from '../src/cli/up/demo-cloud.ts';
import { Emulator } from '../src/emulator/emulator.ts';
import { Session } from '../src/openstack/session.ts';
import { Transport } from '../src/openstack/transport.ts';
import { systemClock } from '../src/util/clock.ts';
import { EmulatorCalls } from './emulator-calls.ts';

/** The token the emulator's KV (OpenBao's stand-in) accepts. */
export const BENCH_KV_TOKEN = 'bench';

type Ask = { readonly op: 'take' | 'snapshot' | 'usage' } | { readonly op: 'times'; readonly key: string };
type Request = Ask & { readonly id: number };

interface Started {
  readonly url: string;
  readonly authUrl: string;
}

/** The bench's handle on the emulator's process: its address, its call counts, its CPU and memory. */
export class RemoteEmulator {
  readonly url: string;
  readonly authUrl: string;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (value: unknown) => void>();
  #next = 0;

  private constructor(child: ChildProcess, started: Started) {
    this.#child = child;
    this.url = started.url;
    this.authUrl = started.authUrl;
    child.on('message', (message: { id: number; value: unknown }) => {
      this.#pending.get(message.id)?.(message.value);
      this.#pending.delete(message.id);
    });
  }

  /** Starts the emulator's process and writes a clouds.yaml whose cloud `bench` is its admin. */
  static async start(cloudsYaml: string): Promise<RemoteEmulator> {
    const child = fork(new URL(import.meta.url).pathname, [cloudsYaml], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const started = await new Promise<Started>((resolve, reject) => {
      child.once('message', (message: Started) => {
        resolve(message);
      });
      child.once('exit', (code) => {
        reject(new Error(`the emulator's process exited (${String(code)})`));
      });
    });
    return new RemoteEmulator(child, started);
  }

  async take(): Promise<Map<string, number>> {
    return new Map(await this.#ask<[string, number][]>({ op: 'take' }));
  }

  async snapshot(): Promise<ReadonlyMap<string, number>> {
    return new Map(await this.#ask<[string, number][]>({ op: 'snapshot' }));
  }

  times(key: string): Promise<readonly number[]> {
    return this.#ask({ op: 'times', key });
  }

  /** The emulator process's CPU time so far (ms) and its RSS (MiB). */
  usage(): Promise<{ cpuMs: number; rssMiB: number }> {
    return this.#ask({ op: 'usage' });
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.kill('SIGTERM');
    await exited;
  }

  #ask<T>(request: Ask): Promise<T> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve as (value: unknown) => void);
      this.#child.send({ ...request, id });
    });
  }
}

/** The emulator's bootstrap admin, in project admin. */
export function emulatorAdmin(authUrl: string, transport: Transport): Session<'project'> {
  return new Session<'project'>({
    authUrl,
    auth: { type: 'password', user: { name: 'admin', domain: { id: 'default' } }, password: 'secret' },
    scope: { kind: 'project', project: { name: 'admin', domain: { id: 'default' } } },
    transport,
    clock: systemClock,
  });
}

/** The child: the emulator as `openregion up` configures it, the demo cloud, the counter, then requests. */
async function serve(cloudsYaml: string): Promise<void> {
  const emulator = await Emulator.start({
    clock: systemClock,
    config: { kvToken: BENCH_KV_TOKEN, octaviaNetworkDriver: 'allowed_address_pairs' },
  });
  const transport = new Transport({ clock: systemClock, random: Math.random });
  await seedDemoCloud(emulatorAdmin(emulator.authUrl, transport));
  await transport.close();
  writeFileSync(cloudsYaml, emulator.cloudsYaml('bench'), { mode: 0o600 });
  const calls = new EmulatorCalls(emulator.url);
  process.on('message', (request: Request) => {
    const answer = (value: unknown) => process.send?.({ id: request.id, value });
    switch (request.op) {
      case 'take':
        answer([...calls.take()]);
        break;
      case 'snapshot':
        answer([...calls.snapshot()]);
        break;
      case 'times':
        // The parent compares arrival times across its own clock: send them as wall-clock milliseconds.
        answer(calls.times(request.key).map((t) => t + performance.timeOrigin));
        break;
      case 'usage': {
        const cpu = process.cpuUsage();
        answer({ cpuMs: (cpu.user + cpu.system) / 1000, rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20) });
        break;
      }
    }
  });
  process.once('SIGTERM', () => {
    calls.close();
    void emulator.close().then(() => process.exit(0));
  });
  process.send?.({ url: emulator.url, authUrl: emulator.authUrl } satisfies Started);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await serve(process.argv[2] ?? 'clouds.yaml');
}
