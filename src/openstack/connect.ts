/** From a parsed CloudConfig to a working Session: the one place the client's parts are wired together. */
import type { Clock, Random } from '../util/clock.ts';
import { effectiveScopeKind, type ScopeKind } from './auth.ts';
import type { CloudConfig } from './config.ts';
import { ConfigError } from './errors.ts';
import { Session, type SessionOptions } from './session.ts';

type SessionScope<K extends ScopeKind> = SessionOptions<K>['scope'];
import { Transport, type RequestObserver, type RetryPolicy } from './transport.ts';

interface ConnectDeps {
  readonly clock: Clock;
  readonly random: Random;
  readonly observer?: RequestObserver | undefined;
  readonly retry?: RetryPolicy | undefined;
}

export function transportFor(config: CloudConfig, deps: ConnectDeps): Transport {
  return new Transport({
    clock: deps.clock,
    random: deps.random,
    tls: config.tls,
    ...(deps.observer ? { observer: deps.observer } : {}),
    ...(deps.retry ? { retry: deps.retry } : {}),
  });
}

/**
 * A session whose scope kind is checked against what the caller needs, so the rest of the program holds a
 * `Session<'project'>` or `Session<'domain'>` and the compiler keeps the credentials apart.
 */
export function connect<K extends ScopeKind>(
  config: CloudConfig,
  expected: K,
  transport: Transport,
  clock: Clock,
): Session<K> {
  const actual = effectiveScopeKind(config.auth, config.scope);
  if (actual !== expected) {
    throw new ConfigError(`clouds.${config.name}.auth`, `must give a ${expected} scope, not ${actual}`);
  }
  return new Session<K>({
    authUrl: config.authUrl,
    auth: config.auth,
    scope: config.scope as SessionScope<K>,
    transport,
    clock,
    interface: config.interface,
    region: config.region,
    endpointOverrides: config.endpointOverrides,
    microversions: config.microversions,
  });
}
