import { parseArgs } from 'node:util';

/** A mistake in how the command line was written: told in one line, with a pointer to `siphon help`. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** May be given more than once; its values are kept in order. */
  multiple?: true;
  /** Its one-letter spelling: `-o` for `--output`. */
  short?: string;
  /**
   * Takes two words, a name and a value (`-p town Leura`), and may be given more than once: kept
   * as name, value, name, value… in order. Node's parser takes one word a flag, so these are read first.
   */
  pair?: true;
}

/** The words of a command line once read: the flags by name (without dashes) and the rest. */
export interface ReadArgs {
  flags: Record<string, string | boolean | string[]>;
  positionals: string[];
}

/**
 * Reads argv against every flag any command takes. Node's parser is run leniently, for its tokens
 * only, so that each mistake gets a message of ours (its own quote its internals, and in strict mode
 * it stops at the first flag of another command before the command is even known).
 */
export function readArgs(argv: readonly string[], known: Readonly<Record<string, FlagSpec>>): ReadArgs {
  const { rest, pairs } = readPairs(argv, known);
  const { tokens } = parseArgs({
    args: rest,
    options: { ...known, help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags: ReadArgs['flags'] = { ...pairs };
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const spec = token.name === 'help' ? { type: 'boolean' as const } : known[token.name];
    if (!spec) throw new UsageError(`unknown option ${token.rawName}`);
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
      flags[token.name] = true;
      continue;
    }
    if (spec.pair) throw new UsageError(`${token.rawName} takes a name and a value as two words: ${token.rawName} NAME VALUE`);
    if (token.value === undefined) throw new UsageError(`${token.rawName} needs a value`);
    // A value taken from the next word that starts with a dash is more likely a forgotten value.
    if (!token.inlineValue && token.value.startsWith('-')) {
      throw new UsageError(`${token.rawName} needs a value; one starting with a dash is written ${token.rawName}=${token.value}`);
    }
    if (spec.multiple) {
      flags[token.name] = [...((flags[token.name] as string[] | undefined) ?? []), token.value];
    } else {
      if (token.name in flags) throw new UsageError(`${token.rawName} is given twice`);
      flags[token.name] = token.value;
    }
  }
  return { flags, positionals };
}

/**
 * The flags of `known` that take a name and a value (`pair`), each with the two words after it, and
 * the other words, in order, for Node's parser; none are read after `--`, which ends the flags.
 */
function readPairs(
  argv: readonly string[],
  known: Readonly<Record<string, FlagSpec>>,
): { rest: string[]; pairs: Record<string, string[]> } {
  const spellings = new Map<string, string>();
  for (const [name, spec] of Object.entries(known)) {
    if (!spec.pair) continue;
    spellings.set(`--${name}`, name);
    if (spec.short) spellings.set(`-${spec.short}`, name);
  }
  const rest: string[] = [];
  const pairs: Record<string, string[]> = {};
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const name = spellings.get(word);
    if (word === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (name === undefined) {
      rest.push(word);
      continue;
    }
    if (i + 2 >= argv.length) throw new UsageError(`${word} needs a name and a value: ${word} NAME VALUE`);
    (pairs[name] ??= []).push(argv[i + 1]!, argv[i + 2]!);
    i += 2;
  }
  return { rest, pairs };
}
