/**
 * Octavia v2 as the dev cloud runs it (Octavia 11, amphora provider with noop drivers: nothing reports health,
 * so operating status stays OFFLINE): load balancers, listeners, pools, members and health monitors, each write
 * going through PENDING_* on the load balancer before ACTIVE, and the version document listing v2.0 … v2.26.
 */
import type { EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { controlError } from './controls.ts';
import { octaviaFault } from './faults.ts';
import { json, noContent } from './http.ts';
import type { Lookups } from './lookups.ts';
import { PREFIX, settle, type OctaviaApi } from './octavia/api.ts';
import { registerControls } from './octavia/controls.ts';
import { registerRoutes } from './octavia/routes.ts';
import { OctaviaState } from './octavia/state.ts';
import { recordsOf, refill } from './records.ts';

/** The API versions Octavia 11 lists, the last CURRENT. */
const LATEST_MINOR = 26;

class Octavia implements EmulatedService {
  readonly name = 'octavia';
  readonly state = new OctaviaState();
  readonly #api: OctaviaApi;

  constructor(ctx: ServiceContext, lookups: Lookups) {
    this.#api = {
      state: this.state,
      ctx,
      lookups,
      settleAt: ctx.timeline.define<{ id: string; op: number }>('octavia.settle', ({ id, op }) => {
        const lb = this.state.lbs.get(id);
        if (lb?.op === op) settle(this.#api, lb);
      }),
    };
    // The version document is public, as Octavia's root is: no token needed to discover the API.
    ctx.router.add('GET', '/load-balancer', () =>
      json({
        versions: Array.from({ length: LATEST_MINOR + 1 }, (_, minor) => ({
          id: `v2.${String(minor)}`,
          status: minor === LATEST_MINOR ? 'CURRENT' : 'SUPPORTED',
          updated: '2016-12-11T00:00:00Z',
          links: [{ href: `${ctx.origin()}${PREFIX}`, rel: 'self' }],
        })),
      }),
    );
    registerRoutes(this.#api);
    registerControls(this.#api);
    ctx.control.add('POST', '/octavia/loadbalancers/{id}/error', (req) => {
      this.putInError(req.params.id ?? '');
      return noContent();
    });
  }

  reset(): void {
    this.state.clear();
  }

  records(): unknown {
    return recordsOf(this.state, ['lbs', 'children', 'nextVip']);
  }

  restore(records: unknown): void {
    refill(this.state, records);
  }

  dump(): unknown {
    return { loadbalancers: [...this.state.lbs.values()], children: [...this.state.children.values()] };
  }

  /** Control: the load balancer goes ERROR (a failed amphora), ending any pending work. */
  putInError(id: string): void {
    const lb = this.state.lbs.get(id);
    if (!lb) throw controlError(404, `no load balancer ${id}`);
    lb.provisioning = 'ERROR';
    lb.op++;
  }
}

export const octaviaModule: ServiceModule<Octavia> = {
  name: 'octavia',
  prefix: '/load-balancer',
  catalog: [{ type: 'load-balancer', name: 'octavia', path: '/load-balancer' }],
  fault: octaviaFault,
  create: (ctx, lookups) => new Octavia(ctx, lookups),
};
