/**
 * `openregion up` as a newcomer runs it: a child process (node, tsx, src/cli/main.ts), its JSON log lines and
 * banner read from stdout, stopped with the signal a test chooses (SIGINT as Ctrl-C, SIGKILL as kill -9). Plus the
 * REST calls a second terminal makes, and the built-in cloud's own record of what it holds.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** A bound on waiting, not an assertion about speed. */
const START_TIMEOUT_MS = 180_000;

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface ChildUp {
  readonly api: string;
  readonly pid: number;
  /** Every JSON log line so far. */
  readonly logs: LogLine[];
  /** Sends `signal` and waits for the process to end; resolves to its exit code (null when killed). */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** Starts `openregion up --dir DIR` (any free API port, JSON debug logs) and waits for its banner. */
export async function startChildUp(
  dir: string,
  args: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<ChildUp> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'up',
      '--dir',
      dir,
      '--port',
      '0',
      '--log-format',
      'json',
      '--log-level',
      'debug',
      ...args,
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '', ...env } },
  );
  const logs: LogLine[] = [];
  const text: string[] = [];
  let stderr = '';
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('{')) logs.push(JSON.parse(line) as LogLine);
      else text.push(line);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const api = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`up did not start within ${String(START_TIMEOUT_MS)} ms; stderr: ${stderr}`));
    }, START_TIMEOUT_MS);
    const look = () => {
      const line = text.find((l) => l.trimStart().startsWith('REST API'));
      const match = line === undefined ? null : /(http:\/\/\S+)/.exec(line);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        child.stdout.off('data', look);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', look);
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`up exited (${String(code)}) before its banner; stderr: ${stderr}`));
    });
  });
  return {
    api,
    pid: child.pid ?? 0,
    logs,
    stop: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code] = await exited;
      return code;
    },
  };
}

export type Rest = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: unknown }>;

/** The REST API as a second terminal calls it, with the token up wrote. */
export function restClient(dir: string, api: () => string): Rest {
  return async (method, path, body) => {
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    const response = await fetch(`${api()}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
}

/** Everything the built-in cloud holds, as its control API dumps it (admin's whole view, every project). */
export async function cloudState(dir: string): Promise<Record<string, Record<string, unknown>>> {
  const clouds = parse(readFileSync(join(dir, 'clouds.yaml'), 'utf8')) as {
    clouds: { emulator: { auth: { auth_url: string } } };
  };
  const origin = new URL(clouds.clouds.emulator.auth.auth_url).origin;
  const response = await fetch(`${origin}/_emulator/state`);
  return (await response.json()) as Record<string, Record<string, unknown>>;
}

/** The ids of every record the cloud holds, by `service.collection` (tokens, which come and go, left out). */
export function cloudIDs(state: Record<string, Record<string, unknown>>): Record<string, string[]> {
  const ids: Record<string, string[]> = {};
  for (const [service, collections] of Object.entries(state)) {
    for (const [name, value] of Object.entries(collections)) {
      if (!Array.isArray(value)) continue;
      const found = value.flatMap((record: unknown) => {
        const r = record as { id?: unknown; uuid?: unknown; name?: unknown };
        const id = r.id ?? r.uuid;
        return typeof id === 'string' ? [id] : [];
      });
      if (found.length > 0) ids[`${service}.${name}`] = found.sort();
    }
  }
  return ids;
}
