/** What every emulated service is given: routing, time, ids, authentication and the control API. */
import type { Clock } from '../util/clock.ts';
import type { AuthContext } from './auth.ts';
import type { EmuFault, EmuRequest, Handler, Method, Router } from './http.ts';
import type { Lookups } from './lookups.ts';
import type { Timeline } from './timeline.ts';

export interface EmulatorConfig {
  /** Nova's maximum microversion, `2.N`; default 2.93 as in Zed. */
  readonly maxComputeMicroversion: string;
  /** Per-operation delays in ms, by name (e.g. `nova.build`); services document their names and defaults. */
  readonly delays: Readonly<Record<string, number>>;
  readonly adminPassword: string;
  /** Whether Nova offers remote consoles; the dev cloud runs with VNC disabled, and says so with a 400. */
  readonly novaConsoles: boolean;
  /** The one token the KV secrets endpoint accepts in `X-Vault-Token` (a dev Vault's root token). */
  readonly kvToken: string;
  /**
   * Octavia's `[controller_worker] network_driver`. `noop` (the default, as the dev cloud runs it) invents VIP port
   * ids Neutron has never seen; `allowed_address_pairs` (a production cloud's) makes the VIP a real Neutron port
   * on the VIP subnet, so a floating IP can be attached to it.
   */
  readonly octaviaNetworkDriver: 'noop' | 'allowed_address_pairs';
}

/** A control endpoint under `/_emulator/`, also callable in-process through the service object. */
interface ControlRegistry {
  add(method: Method, path: string, handler: Handler): void;
}

export interface ServiceContext {
  readonly router: Router;
  readonly clock: Clock;
  readonly timeline: Timeline;
  readonly config: EmulatorConfig;
  readonly control: ControlRegistry;
  /** A fresh UUID (random; the emulator is not meant to be replayed byte for byte). */
  newID(): string;
  /** The emulator's origin, e.g. `http://127.0.0.1:41234`, for links and catalog URLs. */
  origin(): string;
  /** The caller behind X-Auth-Token; throws `unauthorized(...)` (in the service's fault shape) when invalid. */
  authenticate(req: EmuRequest, unauthorized: (message: string) => EmuFault): AuthContext;
  /** The delay named `name`, from configuration or the service's default. */
  delay(name: string, fallbackMs: number): number;
}

/** What the emulator asks of each service module. */
export interface EmulatedService {
  readonly name: string;
  /** Forget all state except the bootstrap (admin user, project, roles, catalog). */
  reset(): void;
  /** A JSON-safe snapshot of the service's state, for the control API's dump. */
  dump(): unknown;
  /** Every record the service keeps, for a persistent emulator: plain data, Maps and Sets (see records.ts). */
  records(): unknown;
  /** Takes back what `records` returned, replacing every record. */
  restore(records: unknown): void;
}

/** A catalog entry a service advertises: its type and name, and its path below the emulator's origin. */
export interface CatalogSpec {
  readonly type: string;
  readonly name: string;
  /** e.g. `/compute/v2.1`; may hold `%(project_id)s`, which Keystone substitutes in a scoped token. */
  readonly path: string;
}

/** How the emulator composes a service: its path prefix, catalog entries, fault shape and constructor. */
export interface ServiceModule<S extends EmulatedService = EmulatedService> {
  readonly name: string;
  /** Every route of the service lies below this prefix, e.g. `/compute`. */
  readonly prefix: string;
  readonly catalog: readonly CatalogSpec[];
  /** An error answer in the service's own shape, for unknown routes and injected faults. */
  fault(status: number, message: string): EmuFault;
  /** Builds the service; it registers its routes and controls, and may install lookups other services use. */
  create(ctx: ServiceContext, lookups: Lookups): S;
}
