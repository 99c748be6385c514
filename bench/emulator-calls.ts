/**
 * OpenStack calls as the emulator receives them, counted by service, verb and path template: whoever sends them
 * (the composed system's own transport, or the limit script), without a hook in either. Node's
 * `http.server.request.start` diagnostics channel sees every request an HTTP server in this process accepts; only
 * those on the emulator's port count.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

const CHANNEL = 'http.server.request.start';
const ID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|req-.*|\d+)$/i;

/**
 * `/compute/v2.1/servers/<uuid>/action` reads `compute POST /v2.1/servers/{id}/action`; the query's parameter
 * names follow (`?name`), so a lookup by name and a full listing count apart.
 */
export function callKey(method: string, url: string): string {
  const [pathPart = '', query = ''] = url.split('?');
  const [service = '', ...rest] = pathPart.split('/').filter((s) => s !== '');
  const path = rest.map((s) => (ID.test(s) ? '{id}' : s)).join('/');
  const names = [...new Set([...new URLSearchParams(query).keys()])].sort().join('&');
  return `${service} ${method} /${path}${names === '' ? '' : `?${names}`}`;
}

export class EmulatorCalls {
  readonly #port: number;
  readonly #counts = new Map<string, number>();
  readonly #times = new Map<string, number[]>();
  readonly #listener = (message: unknown): void => {
    const request = (message as { request: IncomingMessage }).request;
    if (request.socket.localPort !== this.#port || request.url?.startsWith('/_emulator') === true) return;
    const key = callKey(request.method ?? 'GET', request.url ?? '/');
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    const times = this.#times.get(key) ?? [];
    times.push(performance.now());
    this.#times.set(key, times);
  };

  constructor(emulatorUrl: string) {
    this.#port = Number(new URL(emulatorUrl).port);
    subscribe(CHANNEL, this.#listener);
  }

  /** The counts so far, and a fresh start. */
  take(): Map<string, number> {
    const taken = new Map(this.#counts);
    this.#counts.clear();
    this.#times.clear();
    return taken;
  }

  /** The counts so far, leaving them. */
  snapshot(): ReadonlyMap<string, number> {
    return new Map(this.#counts);
  }

  /** When each call of `key` arrived since the last `take` (performance.now() milliseconds). */
  times(key: string): readonly number[] {
    return this.#times.get(key) ?? [];
  }

  close(): void {
    unsubscribe(CHANNEL, this.#listener);
  }
}

export const totalOf = (counts: ReadonlyMap<string, number>): number => [...counts.values()].reduce((a, b) => a + b, 0);

/** Calls per unit by service and verb (`compute POST`), for the table. */
export function perUnitByVerb(counts: ReadonlyMap<string, number>, units: number): Record<string, number> {
  const byVerb = new Map<string, number>();
  for (const [key, n] of counts) {
    const verb = key.split(' ').slice(0, 2).join(' ');
    byVerb.set(verb, (byVerb.get(verb) ?? 0) + n);
  }
  return Object.fromEntries([...byVerb].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, round(n / units)]));
}

export const round = (n: number, places = 2): number => Math.round(n * 10 ** places) / 10 ** places;
