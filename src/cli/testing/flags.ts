/**
 * The command-line tests read a command's flags the way commander parses them at start-up, without running it:
 * errors throw (exitOverride) instead of exiting and print nothing, and a flag the command does not know fails the test.
 */
import assert from 'node:assert/strict';
import { CommanderError, type Command, type OptionValues } from 'commander';

/** A fresh command, quiet and throwing instead of exiting. */
export function quiet(make: () => Command): Command {
  return make()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
}

/** The options `argv` gives the command `make` builds; every flag must be one it knows. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the options' shape, as with opts<T>()
export function flagsOf<T extends OptionValues = OptionValues>(make: () => Command, ...argv: string[]): T {
  const command = quiet(make);
  const { unknown } = command.parseOptions(argv);
  assert.deepEqual(unknown, [], 'every flag is known');
  return command.opts<T>();
}

/** Commander's refusal of a flag value (an InvalidArgumentError from the flag's parser). */
export const invalidArgument = (error: unknown): boolean =>
  error instanceof CommanderError && error.code === 'commander.invalidArgument';
