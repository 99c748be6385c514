/**
 * `openregion emulator --port P [--admin-password PW] [--clouds-yaml FILE] [--demo]`: the OpenStack emulator as a
 * program, serving until SIGINT or SIGTERM. With --clouds-yaml it writes a clouds.yaml whose cloud `emulator` is
 * admin in project admin, so any OpenStack client can point at it. It starts bare (an empty cloud, as the contract
 * tests want it) unless --demo asks for the cloud `up` makes: the same seeding code, the same Octavia driver, so
 * `region configure`, `region register` and `serve` can be tried against it as on a real cloud.
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { Emulator } from '../emulator/emulator.ts';
import { Session } from '../openstack/session.ts';
import { Transport } from '../openstack/transport.ts';
import { systemClock } from '../util/clock.ts';
import { seedDemoCloud } from './up/demo-cloud.ts';

interface EmulatorOptions {
  readonly port: number;
  readonly host: string;
  readonly adminPassword: string;
  readonly cloudsYaml?: string;
  readonly kvToken: string;
  readonly demo?: boolean;
}

/** What `up` seeds its built-in emulator with (src/cli/up/demo-cloud.ts), through the emulator's admin. */
async function seedAsUp(emulator: Emulator, adminPassword: string): Promise<void> {
  const transport = new Transport({ clock: systemClock, random: Math.random });
  try {
    await seedDemoCloud(
      new Session<'project'>({
        authUrl: emulator.authUrl,
        auth: { type: 'password', user: { name: 'admin', domain: { id: 'default' } }, password: adminPassword },
        scope: { kind: 'project', project: { name: 'admin', domain: { id: 'default' } } },
        transport,
        clock: systemClock,
        region: 'RegionOne',
      }),
    );
  } finally {
    await transport.close();
  }
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError('a port number, 0 for any free one');
  return n;
}

export function emulatorCommand(): Command {
  return new Command('emulator')
    .description(
      'Run the OpenStack emulator (Keystone, Nova, Glance, Neutron, Cinder, Octavia, Placement, Ironic) and a KV v2 secrets endpoint on one port',
    )
    .option('--port <port>', 'the port to listen on (0: any free one)', port, 0)
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .option('--admin-password <password>', "the bootstrap admin's password", 'secret')
    .option('--clouds-yaml <file>', 'write a clouds.yaml with the cloud `emulator` to this file')
    .option('--kv-token <token>', 'the X-Vault-Token the KV v2 endpoint (/v1/…) accepts', 'root')
    .option(
      '--demo',
      'seed the cloud `openregion up` makes (roles incl. manager, flavors, images, the external network `public`, ' +
        'volume types) and use its Octavia driver, so region configure/register and serve can run against it',
    )
    .action(async (options: EmulatorOptions) => {
      const emulator = await Emulator.start({
        port: options.port,
        host: options.host,
        adminPassword: options.adminPassword,
        config: {
          kvToken: options.kvToken,
          ...(options.demo === true ? { octaviaNetworkDriver: 'allowed_address_pairs' as const } : {}),
        },
      });
      if (options.demo === true) await seedAsUp(emulator, options.adminPassword);
      if (options.cloudsYaml !== undefined) writeFileSync(options.cloudsYaml, emulator.cloudsYaml(), { mode: 0o600 });
      process.stdout.write(
        `openregion emulator: ${emulator.url} (Keystone ${emulator.authUrl}, control ${emulator.url}/_emulator/)\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await emulator.close();
    });
}
