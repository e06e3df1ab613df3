import { isKeyPrefix } from '../keys.js';
import { CommandFailed } from './command-failed.js';
import type { Command } from './commands.js';
import { formatKeyList, formatUserList } from './listings.js';
import { readNewPassword } from './read-password.js';
import { text, withCatalog } from './with-catalog.js';

/** The commands on accounts and their keys, in the order the list of commands shows them. */
export const accountCommands: readonly Command[] = [
  {
    name: 'user add',
    args: ['NAME'],
    flags: ['label'],
    settings: [],
    summary: 'create an account; prints its first API key',
    about:
      'Creates an account and prints its first API key, alone on one line. The key is labelled "first key" unless --label says otherwise.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        run.io.stdout(`${(await catalog.addUser(run.args[0]!, { label: text(run.flags.label) })).key}\n`);
      }),
  },
  {
    name: 'user passwd',
    args: ['NAME'],
    flags: [],
    settings: [],
    summary: "set account NAME's password for the web (read from stdin)",
    about:
      'Sets the password account NAME signs in with on the web, and logs out its sessions. The password is typed twice at a prompt that does not show it, or, when stdin is not a terminal, is the first line piped in (`printf \'%s\\n\' "$PW" | siphon user passwd NAME`); never an argument, which every user of the machine could read in ps. 10 to 200 characters.',
    run: async (run) => {
      const password = await readNewPassword(run.io);
      if (password === undefined) throw new CommandFailed('the two passwords typed differ; nothing was changed');
      await withCatalog(run, async (catalog) => {
        const account = await catalog.setPassword(run.args[0]!, password);
        run.io.stdout(`password set for ${account.name}; its web sessions are logged out\n`);
      });
    },
  },
  {
    name: 'user list',
    args: [],
    flags: [],
    settings: [],
    summary: 'every account: created, keys, scrapers',
    about:
      'Lists every account, by name: when it was created (UTC), its keys that work, its revoked keys and its scrapers (private ones included).',
    run: (run) => withCatalog(run, async (catalog) => run.io.stdout(formatUserList(await catalog.listUsers()))),
  },
  {
    name: 'key create',
    args: ['NAME'],
    flags: ['read-only', 'origin', 'label'],
    settings: [],
    summary: 'print a further key for account NAME',
    about: 'Prints a further API key for account NAME, alone on one line. Only its hash is kept: it cannot be shown again.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const key = await catalog.createKey(run.args[0]!, {
          readOnly: run.flags['read-only'] === true,
          origins: run.flags.origin as string[] | undefined,
          label: text(run.flags.label),
        });
        run.io.stdout(`${key}\n`);
      }),
  },
  {
    name: 'key list',
    args: ['NAME'],
    flags: [],
    settings: [],
    summary: "the account's keys (never the keys themselves)",
    about:
      "Lists the account's keys, oldest first: prefix, label, read-only, origins, created, last used, revoked. Never a key or its hash.",
    run: (run) => withCatalog(run, async (catalog) => run.io.stdout(formatKeyList(await catalog.listKeys(run.args[0]!)))),
  },
  {
    name: 'key revoke',
    args: ['KEY'],
    flags: ['account'],
    settings: [],
    summary: 'revoke a key at once',
    about:
      'Revokes the key at once: a running server refuses it from its next request. ' +
      'Without the key itself, name it by its prefix as key list shows it, with its account: key revoke sph_AbCdEf --account NAME.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const given = run.args[0]!;
        const account = text(run.flags.account);
        if (account === undefined) {
          if (isKeyPrefix(given)) throw new CommandFailed(`${given} is a key's prefix: name its account too (--account NAME)`);
          if (!(await catalog.revokeKey(given))) throw new CommandFailed('no such key');
        } else {
          const prefix = given.replace(/…$/, '');
          if (!isKeyPrefix(prefix))
            throw new CommandFailed(
              `with --account, give the key's prefix as key list shows it (sph_ and 6 more), not ${JSON.stringify(given)}`,
            );
          const outcome = await catalog.revokeKeyByPrefix(account, prefix);
          if (outcome === 'none') throw new CommandFailed(`${account} has no key in use with the prefix ${prefix}`);
          if (outcome === 'several')
            throw new CommandFailed(
              `${account} has several keys in use with the prefix ${prefix}: revoke by the key itself, or on /account`,
            );
        }
        run.io.stdout('revoked\n');
      }),
  },
];
