/** Builds a project-scoped session against a FakeCloud, with a clock that does not sleep, for service tests. */
import { ManualClock } from '../../util/clock.ts';
import { RequestAccounting } from '../accounting.ts';
import type { ServiceType } from '../catalog.ts';
import { Session, type ServiceClient } from '../session.ts';
import { Transport } from '../transport.ts';
import { FakeCloud } from './fake-cloud.ts';

export interface Harness {
  readonly cloud: FakeCloud;
  readonly session: Session<'project'>;
  readonly clock: ManualClock;
  readonly accounting: RequestAccounting;
  readonly transport: Transport;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const cloud = await FakeCloud.start();
  const clock = new ManualClock();
  cloud.tokens.now = () => clock.now();
  const accounting = new RequestAccounting();
  const transport = new Transport({ clock, random: () => 0.5, observer: accounting.observe });
  const session = new Session({
    authUrl: cloud.authUrl,
    auth: { type: 'password', user: { name: 'admin', domain: { name: 'Default' } }, password: 'p4ssw0rd' },
    scope: { kind: 'project', project: { name: 'demo', domain: { name: 'Default' } } },
    transport,
    clock,
    region: 'RegionOne',
  });
  return {
    cloud,
    session,
    clock,
    accounting,
    transport,
    close: async () => {
      await transport.close();
      await cloud.close();
    },
  };
}

/** A harness and one service's client from its session, as a service's test suite starts with them. */
export async function clientHarness<S extends ServiceType>(
  service: S,
): Promise<{ h: Harness; client: ServiceClient<S, 'project'> }> {
  const h = await startHarness();
  return { h, client: h.session.client(service) };
}
