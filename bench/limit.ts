/**
 * The limit a converging server is compared with: a script that issues only the calls a server strictly needs,
 * against the same emulator in the same run. Per project one project-scoped token; per server a port, the server
 * create, and status reads until ACTIVE (one each when the build has finished by the time it is read, as here: all
 * creates go first, then all reads). One lane, like the server controller's one worker. Its setup (projects,
 * grants, quotas, a network and subnet per project) is done before the count starts, as the system's identities
 * and networks are.
 */
import { Session } from '../src/openstack/session.ts';
import { Transport } from '../src/openstack/transport.ts';
import { createServer, getServer, updateQuotaSet, type ComputeClient } from '../src/openstack/compute.ts';
import { createProject, findRoleByName, grantRole } from '../src/openstack/identity.ts';
import { findImageByName } from '../src/openstack/image.ts';
import { createNetwork, createPort, createSubnet } from '../src/openstack/network.ts';
import { systemClock } from '../src/util/clock.ts';
import type { RemoteEmulator } from './emulator-process.ts';

export interface LimitRun {
  readonly wallMs: number;
  readonly calls: ReadonlyMap<string, number>;
}

const session = (authUrl: string, transport: Transport, project: string) =>
  new Session<'project'>({
    authUrl,
    auth: { type: 'password', user: { name: 'admin', domain: { id: 'default' } }, password: 'secret' },
    scope: { kind: 'project', project: { name: project, domain: { id: 'default' } } },
    transport,
    clock: systemClock,
  });

export async function runLimit(
  authUrl: string,
  calls: RemoteEmulator,
  projects: number,
  servers: number,
): Promise<LimitRun> {
  const transport = new Transport({ clock: systemClock, random: Math.random });
  try {
    const admin = session(authUrl, transport, 'admin');
    const identity = admin.client('identity');
    const adminUser = (await admin.token()).user.id;
    const member = await findRoleByName(identity, 'member');
    const image = await findImageByName(admin.client('image'), 'ubuntu-24.04');
    const flavors = await admin
      .client('compute')
      .request<{ flavors: { id: string }[] }>({ method: 'GET', path: '/flavors' });
    const flavor = flavors.body.flavors[0]?.id;
    if (!member || !image || flavor === undefined) throw new Error('the demo cloud lacks a role, image or flavor');
    const lanes: { name: string; network: string }[] = [];
    const run = Date.now().toString(36);
    for (let p = 0; p < projects; p++) {
      const name = `bench-limit-${run}-${String(p)}`;
      const project = await createProject(identity, { name, domain_id: 'default' });
      await grantRole(identity, { userID: adminUser, projectID: project.id, roleID: member.id });
      await updateQuotaSet(admin.client('compute'), project.id, { instances: -1, cores: -1, ram: -1 });
      const neutron = session(authUrl, transport, name).client('network');
      const network = await createNetwork(neutron, { name });
      await createSubnet(neutron, { network_id: network.id, name, ip_version: 4, cidr: '192.168.0.0/24' });
      lanes.push({ name, network: network.id });
    }
    await calls.take();

    const start = performance.now();
    const sessions = lanes.map((lane) => session(authUrl, transport, lane.name));
    for (const s of sessions) await s.token();
    const created: { compute: ComputeClient; id: string }[] = [];
    for (let i = 0; i < servers; i++) {
      const lane = i % projects;
      const s = sessions[lane];
      const network = lanes[lane]?.network;
      if (s === undefined || network === undefined) throw new Error('no lane');
      const port = await createPort(s.client('network'), { network_id: network });
      const compute = s.client('compute');
      const server = await createServer(compute, {
        name: `limit-${String(i)}`,
        flavorRef: flavor,
        imageRef: image.id,
        networks: [{ port: port.id }],
      });
      created.push({ compute, id: server.id });
    }
    for (const { compute, id } of created) {
      while ((await getServer(compute, id)).status !== 'ACTIVE') {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    return { wallMs: performance.now() - start, calls: await calls.take() };
  } finally {
    await transport.close();
  }
}
