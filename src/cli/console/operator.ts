/**
 * The console's operator API, for a token with the `operator` claim: every controller's queue depth, passes and
 * errors and every OpenStack service's calls, failures and latency (from the runtime's metrics), and KeystoneUser orders in every namespace — placed, read with their
 * conditions, next rotation and delivered Secret's name (never its content), and deleted. Under /api/, so the
 * API's bearer authentication runs first; hidden from the OpenAPI document, which describes the region API only.
 */
import type { Registry } from 'prom-client';
import Type from 'typebox';
import { KeystoneUserOrder } from './order.ts';
import { controlPlaneType } from '../../keystone/apis/controlplane.ts';
import { keystoneUserType, type KeystoneUser } from '../../keystone/apis/keystoneuser.ts';
import type { Client } from '../../kube/client.ts';
import { KubeAlreadyExistsError, KubeInvalidError, KubeNotFoundError } from '../../kube/errors.ts';
import { principalOf } from '../../region/http/principal.ts';
import { problems, violation } from '../../region/http/problem.ts';
import type { Api } from '../../region/http/routes/kit.ts';
import { defined } from '../../util/defined.ts';

export const OPERATOR_PATH = '/api/console/operator';

export interface OperatorDeps {
  readonly client: Client;
  readonly metrics: Registry;
}

interface ControllerRow {
  readonly name: string;
  readonly queueDepth: number;
  readonly reconciles: number;
  readonly errors: number;
  readonly retries: number;
}

interface MetricJson {
  readonly name: string;
  readonly values: readonly { readonly labels: Readonly<Record<string, string | number>>; readonly value: number }[];
}

/** One row a controller: its queue's depth and retries, its passes and errors, from the runtime's metrics. */
export function controllerRows(metrics: readonly MetricJson[]): ControllerRow[] {
  const rows = new Map<string, { queueDepth: number; reconciles: number; errors: number; retries: number }>();
  const add = (name: string, field: 'queueDepth' | 'reconciles' | 'errors' | 'retries', value: number) => {
    const row = rows.get(name) ?? { queueDepth: 0, reconciles: 0, errors: 0, retries: 0 };
    row[field] += value;
    rows.set(name, row);
  };
  const fields = {
    workqueue_depth: ['name', 'queueDepth'],
    workqueue_retries_total: ['name', 'retries'],
    controller_runtime_reconcile_total: ['controller', 'reconciles'],
    controller_runtime_reconcile_errors_total: ['controller', 'errors'],
  } as const;
  for (const metric of metrics) {
    const field = fields[metric.name as keyof typeof fields] as (typeof fields)[keyof typeof fields] | undefined;
    if (field === undefined) continue;
    for (const { labels, value } of metric.values) add(String(labels[field[0]] ?? ''), field[1], value);
  }
  return [...rows]
    .filter(([name]) => name !== '')
    .map(([name, row]) => ({ name, ...row }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

interface OpenStackRow {
  readonly service: string;
  readonly requests: number;
  /** Attempts the cloud failed (5xx) or never answered ("error"). */
  readonly errors: number;
  /** Seconds, summed over every attempt: the console's trend is the change of this over the change of `requests`. */
  readonly latencySeconds: number;
}

/**
 * One row an OpenStack service: attempts, failures and total latency, from the transport's series
 * (`openregion_openstack_*`); the console keeps the history and draws the trend (mean latency per interval).
 */
function openstackRows(metrics: readonly MetricJson[]): OpenStackRow[] {
  const rows = new Map<string, { requests: number; errors: number; latencySeconds: number }>();
  const row = (service: string) => {
    const found = rows.get(service) ?? { requests: 0, errors: 0, latencySeconds: 0 };
    rows.set(service, found);
    return found;
  };
  for (const metric of metrics) {
    if (metric.name === 'openregion_openstack_requests_total') {
      for (const { labels, value } of metric.values) {
        const r = row(String(labels['service'] ?? ''));
        r.requests += value;
        const status = String(labels['status'] ?? '');
        if (status === 'error' || status.startsWith('5')) r.errors += value;
      }
    }
    if (metric.name === 'openregion_openstack_request_duration_seconds') {
      for (const v of metric.values as readonly (MetricJson['values'][number] & { metricName?: string })[]) {
        if (v.metricName?.endsWith('_sum') === true) row(String(v.labels['service'] ?? '')).latencySeconds += v.value;
      }
    }
  }
  return [...rows]
    .filter(([service]) => service !== '')
    .map(([service, r]) => ({ service, ...r }))
    .sort((a, b) => a.service.localeCompare(b.service));
}

/** An order as the console reads it: where, from which ControlPlane, its conditions, rotation and Secret's name. */
function orderRead(user: KeystoneUser) {
  const status = user.status ?? {};
  return {
    namespace: user.metadata.namespace ?? '',
    name: user.metadata.name,
    controlPlane: user.spec.controlPlaneRef.name,
    conditions: (status.conditions ?? []).map(({ type, status: value, reason, message }) => ({
      type,
      status: value,
      reason,
      message,
    })),
    ...defined({ nextRotation: status.nextPasswordRotation, secretName: status.secretName }),
    ...(user.metadata.deletionTimestamp === undefined ? {} : { deleting: true }),
  };
}

/** Where an order's field sits in the body the console sends. */
const ORDER_POINTERS: Readonly<Record<string, string>> = {
  'metadata.name': '/name',
  'metadata.namespace': '/namespace',
  'spec.controlPlaneRef.name': '/controlPlane',
};

function operatorOnly(request: Parameters<typeof principalOf>[0]): void {
  if (principalOf(request).operator !== true) throw problems.forbidden('the token has no operator claim');
}

const hidden = { hide: true } as const;

export function operatorRoutes(app: Api, deps: OperatorDeps): void {
  const { client } = deps;
  app.get(`${OPERATOR_PATH}/controllers`, { schema: hidden }, async (request) => {
    operatorOnly(request);
    return controllerRows((await deps.metrics.getMetricsAsJSON()) as unknown as MetricJson[]);
  });
  app.get(`${OPERATOR_PATH}/openstack`, { schema: hidden }, async (request) => {
    operatorOnly(request);
    return openstackRows((await deps.metrics.getMetricsAsJSON()) as unknown as MetricJson[]);
  });
  app.get(`${OPERATOR_PATH}/controlplanes`, { schema: hidden }, async (request) => {
    operatorOnly(request);
    const planes = await client.list(controlPlaneType);
    return planes.items.map((p) => ({ namespace: p.metadata.namespace ?? '', name: p.metadata.name }));
  });
  app.get(`${OPERATOR_PATH}/keystoneusers`, { schema: hidden }, async (request) => {
    operatorOnly(request);
    return (await client.list(keystoneUserType)).items.map(orderRead);
  });
  app.post(
    `${OPERATOR_PATH}/keystoneusers`,
    { schema: { ...hidden, body: KeystoneUserOrder } },
    async (request, reply) => {
      operatorOnly(request);
      const { namespace, name, controlPlane } = request.body;
      try {
        const created = await client.create(keystoneUserType, {
          apiVersion: `${keystoneUserType.group}/${keystoneUserType.version}`,
          kind: keystoneUserType.kind,
          metadata: { namespace, name },
          spec: { controlPlaneRef: { name: controlPlane } },
        });
        return await reply.code(201).send(orderRead(created));
      } catch (error) {
        if (error instanceof KubeAlreadyExistsError) {
          throw problems.invalid([violation('/name', 'unique', `an order ${namespace}/${name} exists already`)]);
        }
        if (error instanceof KubeNotFoundError) {
          throw problems.invalid([violation('/namespace', 'exists', `namespace ${namespace} does not exist`)]);
        }
        if (error instanceof KubeInvalidError) {
          throw problems.invalid(
            error.causes.map((c) => violation(ORDER_POINTERS[c.field] ?? '', c.reason ?? 'invalid', c.message)),
          );
        }
        throw error;
      }
    },
  );
  app.delete(
    `${OPERATOR_PATH}/keystoneusers/:namespace/:name`,
    { schema: { ...hidden, params: Type.Object({ namespace: Type.String(), name: Type.String() }) } },
    async (request, reply) => {
      operatorOnly(request);
      const { namespace, name } = request.params;
      try {
        await client.delete(keystoneUserType, namespace, name);
      } catch (error) {
        if (error instanceof KubeNotFoundError) throw problems.notFound(`KeystoneUser ${namespace}/${name}`);
        throw error;
      }
      return reply.code(202).send();
    },
  );
}
