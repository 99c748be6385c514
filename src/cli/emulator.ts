/**
 * `openregion emulator --port P [--admin-password PW] [--clouds-yaml FILE]`: the OpenStack emulator as a program,
 * serving until SIGINT or SIGTERM. With --clouds-yaml it writes a clouds.yaml whose cloud `emulator` is admin in
 * project admin, so any OpenStack client can point at it.
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { Emulator } from '../emulator/emulator.ts';

interface EmulatorOptions {
  readonly port: number;
  readonly host: string;
  readonly adminPassword: string;
  readonly cloudsYaml?: string;
  readonly kvToken: string;
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
    .action(async (options: EmulatorOptions) => {
      const emulator = await Emulator.start({
        port: options.port,
        host: options.host,
        adminPassword: options.adminPassword,
        config: { kvToken: options.kvToken },
      });
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
