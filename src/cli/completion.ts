/** What completion knows of a command: its words and every flag it takes (without dashes). */
export interface CompletedCommand {
  name: string;
  flags: readonly string[];
}

export const completionShells = ['bash', 'zsh'] as const;
export type CompletionShell = (typeof completionShells)[number];

const unique = (words: readonly string[]) => [...new Set(words)];
const alternatives = (flags: readonly string[]) => flags.map((f) => `--${f}`).join('|');

/**
 * A bash function completing siphon's command lines from `commands`: the command's words, then its
 * flags after a dash; after a flag that takes a value (`valueFlags`), and where nothing else fits,
 * file names. Words already typed are read past flags and their values, so `--data-dir DIR` may come first.
 * After a flag that takes a name and a value (`pairFlags`, with their dashes: `-p NAME VALUE`), nothing
 * is offered for either word.
 */
function bashScript(commands: readonly CompletedCommand[], valueFlags: readonly string[], pairFlags: readonly string[]): string {
  const firstWords = unique([...commands.map((c) => c.name.split(' ')[0]!), 'help']);
  const groups = firstWords
    .map((first) => [first, commands.filter((c) => c.name.startsWith(`${first} `)).map((c) => c.name.split(' ')[1]!)] as const)
    .filter(([, seconds]) => seconds.length > 0);
  const cases = [
    `    '') words="${firstWords.join(' ')}" ;;`,
    `    help) words="${firstWords.filter((w) => w !== 'help').join(' ')}" ;;`,
    `    completion) words="bash zsh" ;;`,
    ...groups.map(([first, seconds]) => `    ${first}) words="${seconds.join(' ')}" ;;`),
  ];
  const flagCases = commands.map(
    (c) => `    '${c.name}'|'${c.name} '*) flags="${[...c.flags.map((f) => `--${f}`), '--help'].join(' ')}" ;;`,
  );
  return `# siphon's completion for bash: add \`source <(siphon completion bash)\` to ~/.bashrc.
_siphon() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" typed=() i words='' flags=''
  case "$prev" in
    ${alternatives(valueFlags)}|${pairFlags.join('|')}) return ;;
  esac
  case "\${COMP_WORDS[COMP_CWORD-2]}" in
    ${pairFlags.join('|')}) return ;;
  esac
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      ${pairFlags.join('|')}) ((i += 2)) ;;
      ${alternatives(valueFlags)}) ((i++)) ;;
      -*) ;;
      *) typed+=("\${COMP_WORDS[i]}") ;;
    esac
  done
  local line="\${typed[*]}"
  case "$line" in
${flagCases.join('\n')}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "\${flags:---data-dir --database-url --help --version}" -- "$cur"))
    return
  fi
  case "$line" in
${cases.join('\n')}
  esac
  [[ -n "$words" ]] && COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _siphon siphon
`;
}

/** The completion script for `shell`; zsh's runs the bash one through zsh's bashcompinit. */
export function completionScript(
  shell: CompletionShell,
  commands: readonly CompletedCommand[],
  valueFlags: readonly string[],
  pairFlags: readonly string[],
): string {
  const bash = bashScript(commands, valueFlags, pairFlags);
  if (shell === 'bash') return bash;
  return `#compdef siphon
# siphon's completion for zsh: add \`source <(siphon completion zsh)\` to ~/.zshrc, after compinit.
autoload -U +X bashcompinit && bashcompinit
${bash.split('\n').slice(1).join('\n')}`;
}
