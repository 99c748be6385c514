/**
 * The `openregion` program: its commands, each in its own module. A command's module (and what it imports: fastify, the Kubernetes client, SQLite …) loads only when that command
 * runs, so `openregion --version` and a short command start in a fraction of a second.
 */
import { Command } from 'commander';
import { packageVersion } from '../util/version.ts';

interface CommandModule {
  /** The top-level command names the module defines. */
  readonly names: readonly string[];
  readonly load: () => Promise<Command[]>;
}

export const COMMAND_MODULES: readonly CommandModule[] = [
  {
    names: ['api-resources', 'explain'],
    load: async () => {
      const { apiResourcesCommand, explainCommand } = await import('./discovery.ts');
      return [apiResourcesCommand(), explainCommand()];
    },
  },
  { names: ['cloud'], load: async () => [(await import('./cloud.ts')).cloudCommand()] },
  { names: ['completion'], load: async () => [(await import('./completion.ts')).completionCommand()] },
  { names: ['crds'], load: async () => [(await import('./crds.ts')).crdsCommand()] },
  { names: ['describe'], load: async () => [(await import('./describe.ts')).describeCommand()] },
  { names: ['devcloud'], load: async () => [(await import('./devcloud.ts')).devcloudCommand()] },
  { names: ['emulator'], load: async () => [(await import('./emulator.ts')).emulatorCommand()] },
  { names: ['apply', 'get', 'delete'], load: async () => (await import('./kube.ts')).kubeCommands() },
  { names: ['rbac'], load: async () => [(await import('./deploy/rbac.ts')).rbacCommand()] },
  { names: ['region'], load: async () => [(await import('./region.ts')).regionCommand()] },
  { names: ['serve'], load: async () => [(await import('./serve.ts')).serveCommand()] },
  {
    names: ['target-cluster'],
    load: async () => [(await import('./target-cluster.ts')).targetClusterCommand()],
  },
  { names: ['token'], load: async () => [(await import('./token.ts')).tokenCommand()] },
  { names: ['up'], load: async () => [(await import('./up.ts')).upCommand()] },
  { names: ['wait'], load: async () => [(await import('./wait.ts')).waitCommand()] },
];

/**
 * The program with the modules `args` (argv after the node and script paths) needs: the named command's alone,
 * none for --version, every one otherwise (help, a typo's "did you mean").
 */
export async function buildProgram(args: readonly string[] = []): Promise<Command> {
  const program = new Command('openregion')
    .description('A control plane for OpenStack-backed cloud regions, and a Keystone orders operator.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--debug', 'on a failure, print its stack trace and causes')
    .showHelpAfterError();
  const first = args.find((arg) => !arg.startsWith('-'));
  const named = COMMAND_MODULES.filter((m) => first !== undefined && m.names.includes(first));
  const versionOnly = first === undefined && args.some((arg) => arg === '-V' || arg === '--version');
  const needed = versionOnly ? [] : named.length > 0 ? named : COMMAND_MODULES;
  for (const module of needed) for (const command of await module.load()) program.addCommand(command);
  return program;
}
