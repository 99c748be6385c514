/**
 * Nova at microversions 2.1 … the configured maximum (2.93 by default, as in Zed): servers and their actions,
 * flavors, keypairs, server groups, volume attachments and quota sets, plus the controls tests drive it with.
 * Asynchronous work (a build, a rebuild, a power change) is scheduled on the timeline, never on timers.
 */
import type { EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { novaFault } from './faults.ts';
import type { Lookups } from './lookups.ts';
import { registerActions } from './nova/actions.ts';
import { PREFIX, type NovaApi } from './nova/api.ts';
import { registerAttachments } from './nova/attachments.ts';
import { NovaControls } from './nova/controls.ts';
import { negotiate, versionHeaders } from './nova/microversion.ts';
import { registerResources } from './nova/resources.ts';
import { registerServers } from './nova/servers.ts';
import { NovaState, type NServer } from './nova/state.ts';
import { defineNovaTransitions } from './nova/transitions.ts';
import { json, withHeaders } from './http.ts';
import { recordsOf, refill } from './records.ts';

export class Nova implements EmulatedService {
  readonly name = 'nova';
  readonly state = new NovaState();
  readonly controls: NovaControls;
  readonly #api: NovaApi;

  constructor(ctx: ServiceContext, lookups: Lookups) {
    const { router } = ctx;
    this.#api = {
      state: this.state,
      ctx,
      lookups,
      route: (method, path, handler) => {
        router.add(method, `${PREFIX}${path}`, (req) => {
          const mv = negotiate(req, ctx.config.maxComputeMicroversion);
          const headers = { ...versionHeaders(mv), 'x-compute-request-id': `req-${ctx.newID()}` };
          return withHeaders(
            () => headers,
            () => handler(req, { auth: ctx.authenticate(req, (m) => novaFault(401, m)), mv }),
          );
        });
      },
      later: defineNovaTransitions(ctx, this.state, () => this.#api),
      purge: (server) => {
        this.#purge(server);
      },
    };
    this.controls = new NovaControls(this.#api);
    const versions = () => ({
      id: 'v2.1',
      status: 'CURRENT',
      version: ctx.config.maxComputeMicroversion,
      min_version: '2.1',
      updated: '2013-07-23T11:33:21Z',
      links: [{ rel: 'self', href: `${ctx.origin()}${PREFIX}/` }],
    });
    router.add('GET', '/compute', () => json({ versions: [versions()] }));
    router.add('GET', PREFIX, () => json({ version: versions() }));
    registerServers(this.#api);
    registerActions(this.#api);
    registerAttachments(this.#api);
    registerResources(this.#api);
    this.controls.register();
  }

  reset(): void {
    this.state.clear();
  }

  records(): unknown {
    return recordsOf(this.state, ['servers', 'flavors', 'keypairs', 'groups', 'quotas', 'failures', 'policy']);
  }

  restore(records: unknown): void {
    refill(this.state, records);
  }

  dump(): unknown {
    return {
      servers: [...this.state.servers.values()].map(({ flavor, ...s }) => ({ ...s, flavor: flavor.id })),
      flavors: [...this.state.flavors.values()],
      keypairs: this.state.keypairs,
      serverGroups: [...this.state.groups.values()],
      quotas: Object.fromEntries(this.state.quotas),
      pendingFailures: this.state.failures,
      policy: this.state.policy,
    };
  }

  #purge(server: NServer): void {
    server.op++;
    this.state.servers.delete(server.id);
    this.#api.lookups.networks.unplug(server.id);
    for (const a of server.attachments) this.#api.lookups.volumes.detach(a.volumeId, server.id);
    for (const group of this.state.groups.values()) {
      const at = group.members.indexOf(server.id);
      if (at >= 0) group.members.splice(at, 1);
    }
  }
}

export const novaModule: ServiceModule<Nova> = {
  name: 'nova',
  prefix: '/compute',
  catalog: [{ type: 'compute', name: 'nova', path: PREFIX }],
  fault: novaFault,
  create: (ctx, lookups) => new Nova(ctx, lookups),
};
