/**
 * `openregion completion bash|zsh|fish` prints a script the shell sources; the script asks the program itself what
 * may come next (`openregion __complete WORD… PARTIAL`, as kubectl's `__complete`), so verbs, flags, kinds and the
 * names of the objects the store or cluster holds now complete with no list baked into the script. A candidate
 * list that comes back empty leaves the shell to complete file names (after `-f`, `--store`, …).
 */
import { Command } from 'commander';
import type { Out } from './target.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const SCRIPTS: Readonly<Record<Shell, string>> = {
  bash: `# openregion completion for bash. Load it with: source <(openregion completion bash)
_openregion() {
  local cur=\${COMP_WORDS[COMP_CWORD]} IFS=$'\\n' candidates
  candidates=$(openregion __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
}
complete -o default -F _openregion openregion
`,
  zsh: `#compdef openregion
# openregion completion for zsh. Load it with: source <(openregion completion zsh)
_openregion() {
  local -a candidates
  candidates=("\${(@f)$(openregion __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  candidates=("\${(@)candidates:#}")
  if (( \${#candidates} )); then compadd -a candidates; else _files; fi
}
if [ "$funcstack[1]" = "_openregion" ]; then _openregion "$@"; else compdef _openregion openregion; fi
`,
  fish: `# openregion completion for fish. Load it with: openregion completion fish | source
function __openregion_complete
  set -l candidates (openregion __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
  if test (count $candidates) -gt 0
    printf '%s\\n' $candidates
  else
    __fish_complete_path (commandline -ct)
  end
end
complete -c openregion -f -a '(__openregion_complete)'
`,
};

export function completionScript(shell: string): string {
  if (!(SHELLS as readonly string[]).includes(shell))
    throw new Error(`no completion for "${shell}": bash, zsh or fish`);
  return SCRIPTS[shell as Shell];
}

export function completionCommand(out: Out = process.stdout): Command {
  return new Command('completion')
    .description('print a shell completion script: source <(openregion completion bash), likewise zsh; fish: | source')
    .argument('<shell>', 'bash, zsh or fish')
    .action((shell: string) => {
      out.write(completionScript(shell));
    });
}
