/**
 * The whole region service in process against the contract cloud, as `openregion up --cloud` runs it: every region
 * controller and the server monitor in a Manager over the contract store (regions as `region register` writes them,
 * the non-admin region credential), and the REST API over the same store with a development token. A test then does
 * what a tenant does: HTTP requests, and waits on what they read back.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { wireRegionService } from '../../src/cli/up/region-service.ts';
import { KubeAlreadyExistsError } from '../../src/kube/errors.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { systemScheduler } from '../../src/runtime/scheduler.ts';
import { systemClock } from '../../src/util/clock.ts';
import { buildApi } from '../../src/region/http/app.ts';
import { createAuthenticator } from '../../src/region/http/auth.ts';
import { DEV_ALGORITHM, generateDevKeyPair, signDevToken } from '../../src/region/http/dev-token.ts';
import type { Api } from '../../src/region/http/routes/kit.ts';
import type { ServiceConfig } from '../../src/region/registration/register.ts';
import type { ContractCloud } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

export interface ContractService {
  readonly regions: ContractRegions;
  readonly regionID: string;
  readonly organizationID: string;
  readonly projectID: string;
  /** Every log line of the controllers, the monitor and the API. */
  readonly logLines: readonly string[];
  /** One request as the organization's tenant. */
  call<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<Response<T>>;
  close(): Promise<void>;
}

export interface Response<T> {
  readonly status: number;
  readonly body: T;
}

/** How the region service runs, where a test needs it other than `up`'s defaults. */
interface ServiceOptions {
  /** Creates a never-booted server gets before it reads terminal (`serve --provider-create-max-attempts`). */
  readonly maxServerCreateAttempts?: number;
}

export async function contractService(
  c: ContractCloud,
  services: ServiceConfig = {},
  options: ServiceOptions = {},
): Promise<ContractService> {
  const regionID = randomUUID();
  const organizationID = `ct-org-${randomUUID().slice(0, 8)}`;
  const projectID = `ct-project-${randomUUID().slice(0, 8)}`;
  const regions = await contractRegions(c, [{ id: regionID, services }]);
  const { store } = regions;
  await store
    .create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: REGION_NAMESPACE } })
    .catch((error: unknown) => {
      if (!(error instanceof KubeAlreadyExistsError)) throw error;
    });
  const logLines: string[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
  const scheduler = systemScheduler(systemClock);
  const manager = new Manager({ client: store, clock: systemClock, scheduler, log });
  const service = wireRegionService({
    manager,
    client: store,
    namespace: REGION_NAMESPACE,
    registry: regions.registry,
    clock: systemClock,
    scheduler,
    log,
    monitorPeriodMs: 2_000,
    // A snapshot joins the list at once (pending); its later states arrive with a refresh.
    imageRefreshMs: 5_000,
    ...(options.maxServerCreateAttempts === undefined
      ? {}
      : { maxServerCreateAttempts: options.maxServerCreateAttempts }),
  });
  await manager.start();
  service.start();
  const keys = await generateDevKeyPair();
  const api: Api = await buildApi({
    client: store,
    namespace: REGION_NAMESPACE,
    clock: systemClock,
    newID: randomUUID,
    authenticate: createAuthenticator({
      key: { publicJwk: keys.publicJwk, algorithm: DEV_ALGORITHM },
      clock: systemClock,
    }),
    capabilities: service.capabilities,
    imageSource: () => Promise.resolve(undefined),
  });
  const token = await signDevToken(
    keys,
    { subject: `tenant@${organizationID}`, organizationIDs: [organizationID] },
    systemClock,
  );
  return {
    regions,
    regionID,
    organizationID,
    projectID,
    logLines,
    async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<Response<T>> {
      const response = await api.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
      const text = response.body;
      return { status: response.statusCode, body: (text === '' ? undefined : JSON.parse(text)) as T };
    },
    async close() {
      await api.close();
      await service.close();
      await manager.stop();
      await regions.close();
    },
  };
}

/** Asserts a status, showing the body when it is not the one expected. */
export function expectStatus<T>(response: Response<T>, status: number): T {
  assert.equal(response.status, status, JSON.stringify(response.body));
  return response.body;
}
