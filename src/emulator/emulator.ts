/**
 * The OpenStack emulator: one node:http server on one port, each service below its own path prefix, Keystone's
 * catalog advertising them in RegionOne, and a control API under `/_emulator/` (also on the in-process handle).
 *
 * Before each request the timeline is settled at the clock's now, so asynchronous transitions (a build, a
 * rebuild) happen exactly when they are due, on real time or on a ManualClock a test advances.
 *
 * In memory by default (a test double). With `stateFile` the cloud is persistent: every service's records and the
 * timeline are written through to that file before each answer goes out, and a new emulator on the same file
 * resumes that cloud — the same ids, tokens, pending transitions and port — as a real cloud outlives a restart of
 * its API services. In-process controls (`emulator.nova.controls…`) are written with the next request.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deserialize, serialize } from 'node:v8';
import { stringify } from 'yaml';
import { ManualClock, systemClock, type Clock } from '../util/clock.ts';
import type { CatalogSpec, EmulatedService, EmulatorConfig, ServiceContext, ServiceModule } from './context.ts';
import { registerCoreControls } from './controls.ts';
import {
  glanceFault,
  ironicFault,
  keystoneFault,
  neutronFault,
  novaFault,
  octaviaFault,
  placementFault,
} from './faults.ts';
import { Glance, glanceModule } from './glance.ts';
import { EmuFault, Router, type EmuRequest, type EmuResponse, type Method } from './http.ts';
import { ironicModule } from './ironic.ts';
import { Keystone, keystoneModule } from './keystone.ts';
import { kvModule } from './kv.ts';
import { Lookups } from './lookups.ts';
import { Chaos } from './chaos.ts';
import { cinderModule } from './cinder.ts';
import { neutronModule } from './neutron.ts';
import { Nova, novaModule } from './nova.ts';
import { octaviaModule } from './octavia.ts';
import { placementModule } from './placement.ts';
import { RouteFaults } from './route-faults.ts';
import { StateFile, type PartCodec, type StoredCloud } from './state-file.ts';
import { Timeline, type TimelineSnapshot } from './timeline.ts';

export interface EmulatorOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  readonly adminPassword?: string;
  /** Defaults to the system clock; a ManualClock makes every transition wait for `control.advance`. */
  readonly clock?: Clock;
  readonly config?: Partial<Omit<EmulatorConfig, 'adminPassword'>>;
  /** The services besides Keystone; defaults to `defaultServices()`. */
  readonly services?: readonly ServiceModule[];
  /** Keep the cloud in this file (created when missing) and resume the one it holds; in memory when absent. */
  readonly stateFile?: string;
  /** Seals the state file's parts at rest (`up` passes the embedded store's encryption). */
  readonly stateCodec?: PartCodec;
}

/** The services the emulator runs unless told otherwise; other services join this list. */
export const defaultServices = (): ServiceModule[] => [
  glanceModule,
  novaModule,
  neutronModule,
  cinderModule,
  octaviaModule,
  placementModule,
  ironicModule,
  kvModule,
];

/** The error shape of each service prefix, so an unknown route answers like the service it names would. */
const PREFIX_FAULTS: readonly [string, (status: number, message: string) => EmuFault][] = [
  ['/identity', (s, m) => keystoneFault(s, s === 404 ? 'Not Found' : 'Error', m)],
  ['/compute', novaFault],
  ['/image', glanceFault],
  ['/network', (s, m) => neutronFault(s, s === 404 ? 'HTTPNotFound' : 'HTTPError', m)],
  ['/volume', novaFault],
  ['/load-balancer', octaviaFault],
  ['/placement', (s, m) => placementFault(s, 'placement.undefined_code', m)],
  ['/baremetal', ironicFault],
];

const JSON_TYPES = /json/;
/** The state file's part for the timeline (the others are named for their service). */
const TIMELINE_PART = 'timeline';

interface EmulatorControl {
  /** Forgets everything but the bootstrap, and every route fault. */
  reset(): void;
  /** A JSON-safe snapshot of every service's state. */
  dump(): Record<string, unknown>;
  readonly faults: RouteFaults;
  /** Random faults at seeded rates; off until configured. */
  readonly chaos: Chaos;
  /** Moves a ManualClock forward and settles what fell due; refused on any other clock. */
  advance(ms: number): void;
}

export class Emulator {
  readonly #server: Server;
  readonly #router = new Router();
  readonly #controls = new Router();
  readonly #timeline = new Timeline();
  readonly #faults = new RouteFaults();
  readonly #chaos = new Chaos();
  readonly #clock: Clock;
  readonly #services = new Map<string, EmulatedService>();
  readonly #modules: ServiceModule[];
  readonly #keystone: Keystone;
  readonly #adminPassword: string;
  readonly #state: StateFile | undefined;
  /** The serialized parts as last written, so a request that changed nothing writes nothing. */
  readonly #written = new Map<string, Buffer>();
  #resumed = false;
  #url = '';

  private constructor(options: EmulatorOptions) {
    this.#clock = options.clock ?? systemClock;
    const config: EmulatorConfig = {
      maxComputeMicroversion: options.config?.maxComputeMicroversion ?? '2.93',
      delays: options.config?.delays ?? {},
      novaConsoles: options.config?.novaConsoles ?? true,
      kvToken: options.config?.kvToken ?? 'root',
      octaviaNetworkDriver: options.config?.octaviaNetworkDriver ?? 'noop',
      adminPassword: options.adminPassword ?? 'secret',
    };
    this.#adminPassword = config.adminPassword;
    this.#modules = [...(options.services ?? defaultServices())];
    const lookups = new Lookups();
    const catalog = (): CatalogSpec[] => this.#modules.flatMap((m) => m.catalog);
    const context: ServiceContext = {
      router: this.#router,
      clock: this.#clock,
      timeline: this.#timeline,
      config,
      control: { add: (method, path, handler) => this.#controls.add(method, `/_emulator${path}`, handler) },
      newID: () => randomUUID(),
      origin: () => this.#url,
      authenticate: (req, unauthorized) => {
        const header = req.headers['x-auth-token'];
        const auth = typeof header === 'string' ? this.#keystone.authenticate(header) : undefined;
        if (!auth) throw unauthorized('The request you have made requires authentication.');
        return auth;
      },
      delay: (name, fallbackMs) => config.delays[name] ?? fallbackMs,
    };
    this.#keystone = keystoneModule(catalog).create(context, lookups);
    this.#services.set('keystone', this.#keystone);
    for (const module of this.#modules) this.#services.set(module.name, module.create(context, lookups));
    registerCoreControls(this.#controls, this.control);
    this.#state = options.stateFile === undefined ? undefined : new StateFile(options.stateFile, options.stateCodec);
    this.#server = createServer((req, res) => {
      this.#serve(req, res).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  static async start(options: EmulatorOptions = {}): Promise<Emulator> {
    const emulator = new Emulator(options);
    try {
      const stored = emulator.#resume();
      const host = options.host ?? '127.0.0.1';
      // A resumed cloud asks for its old port first, so clouds.yaml and stored endpoints keep working.
      const port = options.port ?? stored?.port;
      try {
        await emulator.#listen(port ?? 0, host);
      } catch (error) {
        if (options.port !== undefined || port === undefined || (error as { code?: string }).code !== 'EADDRINUSE')
          throw error;
        await emulator.#listen(0, host);
      }
      const address = emulator.#server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      emulator.#url = `http://${shown}:${String(address.port)}`;
      emulator.#state?.rememberPort(address.port);
      emulator.#persist();
      return emulator;
    } catch (error) {
      emulator.#state?.close();
      throw error;
    }
  }

  #listen(port: number, host: string): Promise<void> {
    const server = this.#server;
    return new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  }

  /** Takes back the cloud the state file holds, if any. */
  #resume(): StoredCloud | undefined {
    const stored = this.#state?.read();
    if (stored === undefined) return undefined;
    for (const [name, service] of this.#services) {
      const part = stored.parts.get(name);
      if (part !== undefined) service.restore(deserialize(part));
    }
    const timeline = stored.parts.get(TIMELINE_PART);
    if (timeline !== undefined) this.#timeline.restore(deserialize(timeline) as TimelineSnapshot);
    for (const [name, part] of stored.parts) this.#written.set(name, part);
    this.#resumed = true;
    return stored;
  }

  /** Writes through every part a request changed; a no-op for an in-memory emulator. */
  #persist(): void {
    if (this.#state === undefined) return;
    const parts = new Map<string, Buffer>([[TIMELINE_PART, serialize(this.#timeline.snapshot())]]);
    for (const [name, service] of this.#services) parts.set(name, serialize(service.records()));
    const changed = new Map([...parts].filter(([name, part]) => !this.#written.get(name)?.equals(part)));
    if (changed.size === 0) return;
    this.#state.write(changed);
    for (const [name, part] of changed) this.#written.set(name, part);
  }

  /** Whether this emulator resumed a cloud from its state file (false: a new cloud). */
  get resumed(): boolean {
    return this.#resumed;
  }

  /** The origin, e.g. `http://127.0.0.1:41234`. */
  get url(): string {
    return this.#url;
  }

  get authUrl(): string {
    return `${this.#url}/identity/v3`;
  }

  get keystone(): Keystone {
    return this.#keystone;
  }

  get glance(): Glance {
    return this.#serviceOf(Glance);
  }

  get nova(): Nova {
    return this.#serviceOf(Nova);
  }

  /** A registered service by its class, for its own controls; throws when it is not registered. */
  service<S extends EmulatedService>(type: abstract new (...args: never[]) => S): S {
    return this.#serviceOf(type);
  }

  #serviceOf<S extends EmulatedService>(type: abstract new (...args: never[]) => S): S {
    for (const service of this.#services.values()) if (service instanceof type) return service;
    throw new Error(`the emulator runs no ${type.name}`);
  }

  readonly control: EmulatorControl = {
    reset: () => {
      this.#timeline.clear();
      this.#faults.clear();
      this.#chaos.reset();
      for (const service of this.#services.values()) service.reset();
    },
    dump: () => Object.fromEntries([...this.#services].map(([name, service]) => [name, service.dump()])),
    faults: this.#faults,
    chaos: this.#chaos,
    advance: (ms) => {
      if (!(this.#clock instanceof ManualClock))
        throw new Error('the emulator runs on a real clock: it cannot be advanced');
      this.#clock.advance(ms);
      this.#timeline.settle(this.#clock.now());
    },
  };

  /** A clouds.yaml with one cloud, `name`, for admin in project admin. */
  cloudsYaml(name = 'emulator'): string {
    return stringify({
      clouds: {
        [name]: {
          auth: {
            auth_url: this.authUrl,
            username: 'admin',
            password: this.#adminPassword,
            user_domain_name: 'Default',
            project_name: 'admin',
            project_domain_name: 'Default',
          },
          region_name: 'RegionOne',
          identity_api_version: '3',
        },
      },
    });
  }

  close(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#server.close((error) => {
        if (error) reject(error);
        else resolve();
      });
      this.#server.closeAllConnections();
    }).finally(() => {
      this.#state?.close();
    });
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestID = `req-${randomUUID()}`;
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = (req.method ?? 'GET').toUpperCase() as Method;
    const raw = await readBody(req);
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const faultOf = this.#faultShape(path);
    let answer: EmuResponse;
    let lostAnswer = false;
    try {
      const type = req.headers['content-type'] ?? '';
      let body: unknown;
      if (raw.length > 0 && JSON_TYPES.test(type)) {
        try {
          body = JSON.parse(raw.toString('utf8')) as unknown;
        } catch {
          throw faultOf(400, 'Malformed request body: the body is not valid JSON.');
        }
      }
      const request = (params: Record<string, string>): EmuRequest => ({
        method,
        path,
        query: url.searchParams,
        headers: req.headers,
        rawBody: JSON_TYPES.test(type) ? raw.toString('utf8') : raw.toString('latin1'),
        body,
        params,
      });
      const control = this.#controls.match(method, path);
      if (control !== undefined && control !== 'method-not-allowed') {
        answer = await control.handler(request(control.params));
      } else {
        this.#timeline.settle(this.#clock.now());
        const match = this.#router.match(method, path);
        if (match === undefined) throw faultOf(404, 'The resource could not be found.');
        if (match === 'method-not-allowed') throw faultOf(405, 'The method is not allowed for the requested URL.');
        for (const hit of this.#faults.take(method, match.template)) {
          if (hit.kind === 'reset') {
            req.socket.destroy();
            return;
          }
          if (hit.kind === 'latency') {
            // Injected latency is real time on purpose: it exercises the client's own timeouts.
            await systemClock.sleep(hit.ms);
            this.#timeline.settle(this.#clock.now());
          } else {
            throw faultOf(hit.status, hit.message ?? `Injected fault: HTTP ${String(hit.status)}.`);
          }
        }
        const chaos = this.#chaos.decide(method, match.template);
        if (chaos?.kind === 'reset') {
          req.socket.destroy();
          return;
        }
        if (chaos?.kind === 'latency') {
          await systemClock.sleep(chaos.ms);
          this.#timeline.settle(this.#clock.now());
        }
        if (chaos?.kind === 'burst') throw faultOf(chaos.status, 'Injected fault: the service is unavailable.');
        if (chaos?.kind === 'conflict') throw faultOf(409, 'Injected fault: a concurrent request changed this.');
        lostAnswer = chaos?.kind === 'lost-answer';
        answer = await match.handler(request(match.params));
      }
    } catch (error) {
      answer =
        error instanceof EmuFault
          ? { status: error.status, body: error.body, headers: error.headers }
          : errorAnswer(faultOf, error);
    }
    try {
      this.#persist();
    } catch (error) {
      // Nothing is acknowledged that is not on disk.
      answer = errorAnswer(faultOf, error);
    }
    // The change is made and on disk, but the connection drops before the client hears of it.
    if (lostAnswer) {
      req.socket.destroy();
      return;
    }
    write(res, method, answer, requestID);
  }

  #faultShape(path: string): (status: number, message: string) => EmuFault {
    const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
    const module = this.#modules.find((m) => under(m.prefix));
    if (module) return (status, message) => module.fault(status, message);
    const known = PREFIX_FAULTS.find(([prefix]) => under(prefix));
    return known ? known[1] : (status, message) => new EmuFault(status, { error: message }, message);
  }
}

function errorAnswer(faultOf: (status: number, message: string) => EmuFault, error: unknown): EmuResponse {
  const fault = faultOf(
    500,
    `Unexpected error in the emulator: ${error instanceof Error ? error.message : String(error)}`,
  );
  return { status: 500, body: fault.body };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

function write(res: ServerResponse, method: Method, answer: EmuResponse, requestID: string): void {
  const headers: Record<string, string> = { 'x-openstack-request-id': requestID, ...answer.headers };
  let payload: string | undefined;
  if (answer.body !== undefined) {
    if (typeof answer.body === 'string') {
      payload = answer.body;
      headers['content-type'] ??= 'text/html; charset=UTF-8';
    } else {
      payload = JSON.stringify(answer.body);
      headers['content-type'] ??= 'application/json';
    }
  }
  headers['content-length'] = String(payload === undefined ? 0 : Buffer.byteLength(payload));
  res.writeHead(answer.status, headers);
  res.end(method === 'HEAD' ? undefined : payload);
}
