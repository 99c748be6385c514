/**
 * The operator's view (a token with the operator claim): every controller's queue depth, passes, errors and retries,
 * their trends and OpenStack's (failures, mean call latency) over the last two minutes, and KeystoneUser orders in every namespace — place one, read its conditions, next rotation and delivered Secret's
 * name (never the Secret's content), delete it.
 */
import { useEffect, useState } from 'preact/hooks';
import { KeystoneUserOrder } from '../../src/cli/console/order.ts';
import { DeleteButton, Empty, Field, ProblemNote, Section, usePoll } from '../components.tsx';
import { useScope } from '../context.ts';
import { shownPointers, useSubmit } from '../form.ts';
import { Trend } from '../trend.tsx';
import { KEPT, seriesOf, type Sample } from '../trends.ts';

const BASE = '/api/console/operator';

/** What /api/console/operator/controllers answers, a row a controller. */
interface ControllerRow {
  readonly name: string;
  readonly queueDepth: number;
  readonly reconciles: number;
  readonly errors: number;
  readonly retries: number;
}

/** What /api/console/operator/keystoneusers answers, an order a row. */
interface OrderRead {
  readonly namespace: string;
  readonly name: string;
  readonly controlPlane: string;
  readonly conditions: readonly { type: string; status: string; reason: string; message: string }[];
  readonly nextRotation?: string;
  readonly secretName?: string;
  readonly deleting?: boolean;
}

/** What /api/console/operator/openstack answers, a row an OpenStack service. */
interface OpenStackRow {
  readonly service: string;
  readonly requests: number;
  readonly errors: number;
  readonly latencySeconds: number;
}

const sum = <T,>(rows: readonly T[], pick: (row: T) => number) => rows.reduce((n, r) => n + pick(r), 0);

export function OperatorView() {
  const { api } = useScope();
  const controllers = usePoll(() => api<ControllerRow[]>('GET', `${BASE}/controllers`), [api]);
  const openstack = usePoll(() => api<OpenStackRow[]>('GET', `${BASE}/openstack`), [api]);
  const orders = usePoll(() => api<OrderRead[]>('GET', `${BASE}/keystoneusers`), [api]);
  const [samples, setSamples] = useState<readonly Sample[]>([]);
  useEffect(() => {
    const [c, o] = [controllers.value, openstack.value];
    if (c === undefined || o === undefined) return;
    const sample: Sample = {
      queueDepth: sum(c, (r) => r.queueDepth),
      errors: sum(c, (r) => r.errors),
      openstackRequests: sum(o, (r) => r.requests),
      openstackErrors: sum(o, (r) => r.errors),
      openstackLatencySeconds: sum(o, (r) => r.latencySeconds),
    };
    setSamples((kept) => [...kept, sample].slice(-KEPT));
  }, [controllers.value]);
  const series = seriesOf(samples);
  return (
    <>
      <h1>Operator</h1>
      <Section title="Trends">
        <ProblemNote problem={openstack.problem} />
        <div class="trends">
          <Trend title="Queue depth" values={series.queueDepth} unit="items" />
          <Trend title="Controller errors" values={series.errors} unit="per read" />
          <Trend title="OpenStack failures" values={series.openstackErrors} unit="per read" />
          <Trend title="OpenStack call latency" values={series.openstackLatencyMs} unit="ms (mean)" />
        </div>
      </Section>
      <Section title="Controllers">
        <ProblemNote problem={controllers.problem} />
        <table>
          <thead>
            <tr>
              <th scope="col">Controller</th>
              <th scope="col">Queue depth</th>
              <th scope="col">Passes</th>
              <th scope="col">Errors</th>
              <th scope="col">Retries</th>
            </tr>
          </thead>
          <tbody>
            {(controllers.value ?? []).map((c) => (
              <tr key={c.name} data-name={c.name}>
                <td>{c.name}</td>
                <td>{c.queueDepth}</td>
                <td>{c.reconciles}</td>
                <td>{c.errors}</td>
                <td>{c.retries}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <PlaceOrder onPlaced={orders.refresh} />
      <Section title="KeystoneUser orders">
        <ProblemNote problem={orders.problem} />
        {orders.value?.length === 0 ? <Empty what="orders" /> : null}
        <table>
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">ControlPlane</th>
              <th scope="col">Ready</th>
              <th scope="col">Conditions</th>
              <th scope="col">Next rotation</th>
              <th scope="col">Delivered Secret</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(orders.value ?? []).map((o) => {
              const ready = o.conditions.find((c) => c.type === 'Ready');
              return (
                <tr key={`${o.namespace}/${o.name}`} data-name={`${o.namespace}/${o.name}`}>
                  <td>
                    {o.namespace}/{o.name}
                  </td>
                  <td>{o.controlPlane}</td>
                  <td class="status">{o.deleting === true ? 'Deleting' : (ready?.status ?? 'Unknown')}</td>
                  <td>
                    <ul>
                      {o.conditions.map((c) => (
                        <li key={c.type}>
                          {c.type}={c.status} {c.reason}: {c.message}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{o.nextRotation ?? '—'}</td>
                  <td>{o.secretName ?? '—'}</td>
                  <td>
                    <DeleteButton
                      name={`${o.namespace}/${o.name}`}
                      onDelete={() =>
                        api('DELETE', `${BASE}/keystoneusers/${o.namespace}/${o.name}`).then(orders.refresh)
                      }
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Section>
    </>
  );
}

function PlaceOrder({ onPlaced }: { onPlaced: () => void }) {
  const { api } = useScope();
  const planes = usePoll(() => api<{ namespace: string; name: string }[]>('GET', `${BASE}/controlplanes`), [api]);
  const [namespace, setNamespace] = useState('default');
  const [name, setName] = useState('');
  const [controlPlane, setControlPlane] = useState('');
  const plane = controlPlane === '' ? (planes.value?.[0]?.name ?? '') : controlPlane;
  const submit = useSubmit(KeystoneUserOrder);
  return (
    <Section title="Order a Keystone service account">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit
            .run({ namespace, name, controlPlane: plane }, (b) => api('POST', `${BASE}/keystoneusers`, b))
            .then((ok) => {
              if (!ok) return;
              setName('');
              onPlaced();
            });
        }}
      >
        <Field label="Namespace" pointer="/namespace" errors={submit.errors}>
          {(p) => <input {...p} value={namespace} onInput={(e) => setNamespace(e.currentTarget.value)} />}
        </Field>
        <Field label="Name" pointer="/name" errors={submit.errors} hint="Also the Keystone user's name">
          {(p) => <input {...p} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field label="ControlPlane" pointer="/controlPlane" errors={submit.errors}>
          {(p) => (
            <select {...p} value={plane} onChange={(e) => setControlPlane(e.currentTarget.value)}>
              {(planes.value ?? []).map((c) => (
                <option key={`${c.namespace}/${c.name}`} value={c.name}>
                  {c.namespace}/{c.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ProblemNote problem={submit.problem} shown={shownPointers('/namespace', '/name', '/controlPlane')} />
        <button type="submit" disabled={submit.busy}>
          Place order
        </button>
      </form>
    </Section>
  );
}
