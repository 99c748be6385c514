import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { completions } from './complete.ts';
import { completionScript } from './completion.ts';
import { kubeCommands } from './kube.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'openregion-completion-'));
const store = join(dir, 'store.db');
const env = { OPENREGION_STORE: store };

const objects = `
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Secret
metadata: {name: creds-one, namespace: team-a}
---
apiVersion: v1
kind: Secret
metadata: {name: creds-two, namespace: default}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
`;

before(async () => {
  writeFileSync(join(dir, 'objects.yaml'), objects);
  const program = new Command('openregion').exitOverride();
  for (const c of kubeCommands({ write: () => true })) program.addCommand(c);
  await program.parseAsync(['node', 'openregion', 'apply', '-f', join(dir, 'objects.yaml'), '--store', store]);
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('openregion __complete', () => {
  const cases: [string, string[], string[]][] = [
    ['verbs', ['de'], ['delete', 'describe', 'devcloud']],
    ['subcommands', ['region', 're'], ['register']],
    ['kinds, by plural', ['get', 'sec'], ['secrets']],
    ['names in the default namespace', ['get', 'secrets', ''], ['creds-two']],
    ['names in the namespace -n names', ['describe', 'secret', '-n', 'team-a', ''], ['creds-one']],
    ['names across namespaces with -A', ['get', 'secrets', '--all-namespaces', 'creds'], ['creds-one', 'creds-two']],
    ['TYPE/NAME, as typed', ['get', 'secret/c'], ['secret/creds-two']],
    ['TYPE/NAME after another', ['describe', 'secrets/creds-two', 'configmap/'], ['configmap/settings']],
    ['TYPE/NAME across namespaces with -A', ['get', '-A', 'secrets/'], ['secrets/creds-one', 'secrets/creds-two']],
    ['namespaces after -n', ['get', 'secrets', '-n', 't'], ['team-a']],
    ['the -o formats', ['get', 'secrets', '-o', 'j'], ['json', 'jsonpath=']],
    ['flags', ['wait', 'secret', 'x', '--ti'], ['--timeout']],
    ['nothing after -f (the shell completes file names)', ['apply', '-f', ''], []],
    ['the shells', ['completion', ''], ['bash', 'fish', 'zsh']],
  ];
  for (const [what, words, expected] of cases) {
    it(what, async () => {
      assert.deepEqual(await completions(words, env), expected);
    });
  }

  it('offers no names (and does not fail) when the store is not there', async () => {
    assert.deepEqual(await completions(['get', 'secrets', ''], { OPENREGION_STORE: join(dir, 'none.db') }), []);
  });
});

describe('openregion completion', () => {
  /** bash, with `openregion` this checkout's CLI, after `source <(openregion completion bash)`. */
  const bash = (script: string) =>
    run(
      'bash',
      [
        '-c',
        `openregion() { "${process.execPath}" --import tsx src/cli/main.ts "$@"; }
source <(openregion completion bash)
${script}`,
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', ...env } },
    );
  /** What bash's completion offers for a command line ending at the word being typed. */
  const offered = (line: string) =>
    `COMP_LINE='${line}'; COMP_POINT=\${#COMP_LINE}; read -ra COMP_WORDS <<<"$COMP_LINE"
[[ $COMP_LINE == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _openregion; echo "\${COMPREPLY[*]}"`;

  it('bash: the script loads, registers itself, and completes verbs, kinds and the store’s object names', async () => {
    const { stdout, stderr } = await bash(
      [
        'complete -p openregion',
        offered('openregion des'),
        offered('openregion get secr'),
        offered('openregion get secrets '),
      ].join('\n'),
    );
    assert.equal(stderr, '');
    assert.deepEqual(stdout.split('\n'), [
      'complete -o default -F _openregion openregion',
      'describe',
      'secrets',
      'creds-two',
      '',
    ]);
  });

  it('bash: compgen filters the candidates by the word being typed', async () => {
    const { stdout } = await bash(offered('openregion get secrets -n team-a creds-o'));
    assert.equal(stdout, 'creds-one\n');
  });

  it('prints a script for zsh and fish that asks the same question, and refuses another shell', () => {
    assert.match(completionScript('zsh'), /compdef _openregion openregion/);
    assert.match(completionScript('fish'), /openregion __complete \(commandline -opc\)\[2\.\.-1\] \(commandline -ct\)/);
    assert.throws(() => completionScript('tcsh'), /no completion for "tcsh": bash, zsh or fish/);
  });
});
