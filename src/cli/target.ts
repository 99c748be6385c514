/**
 * What the everyday verbs share: the target flags (--store, --kubeconfig, --context, --encryption-key-file) and
 * running a verb against the target with kubectl's error lines and an exit code by class.
 */
import { Command, Option } from 'commander';
import type { Client } from '../kube/client.ts';
import { KubeError } from '../kube/errors.ts';
import { CliError, connect, DEFAULT_STORE, type Connection, STORE_VARIABLE, type Target } from './connect.ts';
import { exitCodeOf } from './failure.ts';

export type Out = { write(text: string): unknown };

/**
 * Runs `fn` against the target, reporting known failures as kubectl does (exit code by its class, failure.ts). Only a write that may
 * start from nothing (`apply`) passes `create`: every other verb refuses a store that does not exist.
 */
export async function withClient(
  target: Target,
  err: Out,
  /** `namespace`: where a namespaced verb acts without -n (the context's namespace, or `default`). */
  fn: (client: Client, namespace: string) => Promise<void>,
  options: { readonly create?: boolean } = {},
): Promise<void> {
  let connection: Connection | undefined;
  try {
    connection = await connect(target, options);
    await fn(connection.client, connection.namespace);
  } catch (error) {
    if (error instanceof KubeError) err.write(`Error from server (${error.reason}): ${error.message}\n`);
    else if (error instanceof CliError) err.write(`error: ${error.message}\n`);
    else throw error;
    process.exitCode = exitCodeOf(error);
  } finally {
    await connection?.close();
  }
}

/** --store (default: $OPENREGION_STORE, which up's dev.env exports, else ./.openregion/store.db) and --kubeconfig. */
export const targetOptions = (c: Command): Command =>
  c
    .addOption(
      new Option('--store <path>', 'the embedded store file of a running `openregion up`')
        .env(STORE_VARIABLE)
        .default(DEFAULT_STORE),
    )
    .option('--kubeconfig <path>', 'a Kubernetes cluster instead of the embedded store')
    .option(
      '--context <name>',
      "a kubeconfig context ($KUBECONFIG or ~/.kube/config unless --kubeconfig), as kubectl's",
    )
    .option(
      '--encryption-key-file <path>',
      "the embedded store's encryption keys (default: store-encryption.yaml beside the store, when there)",
    );
