/** What every emulated service is given: routing, time, ids, authentication and the control API. */
import type { Clock } from '../util/clock.ts';
import type { EmuFault, EmuRequest, Handler, Method, Router } from './http.ts';
import type { Timeline } from './timeline.ts';

/** Who a request's token says the caller is. Roles are names, implied roles already expanded. */
export interface AuthContext {
  readonly token: string;
  readonly userId: string;
  readonly userName: string;
  readonly userDomainId: string;
  /** Set for a project-scoped token (including one from an application credential). */
  readonly projectId: string | undefined;
  readonly projectDomainId: string | undefined;
  /** Set for a domain-scoped token. */
  readonly domainId: string | undefined;
  readonly system: boolean;
  readonly roles: readonly string[];
  /** Set when the token came from an application credential. */
  readonly applicationCredentialId: string | undefined;
}

export const hasRole = (auth: AuthContext, role: string): boolean => auth.roles.includes(role);
export const isAdmin = (auth: AuthContext): boolean => hasRole(auth, 'admin');

export interface EmulatorConfig {
  /** Nova's maximum microversion, `2.N`; default 2.93 as in Zed. */
  readonly maxComputeMicroversion: string;
  /** Per-operation delays in ms, by name (e.g. `nova.build`); services document their names and defaults. */
  readonly delays: Readonly<Record<string, number>>;
  readonly adminPassword: string;
}

/** A control endpoint under `/_emulator/`, also callable in-process through the service object. */
export interface ControlRegistry {
  add(method: Method, path: string, handler: Handler): void;
}

export interface ServiceContext {
  readonly router: Router;
  readonly clock: Clock;
  readonly timeline: Timeline;
  readonly config: EmulatorConfig;
  readonly control: ControlRegistry;
  /** A fresh UUID (random; the emulator is not meant to be replayed byte for byte). */
  newId(): string;
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
}
