import { namedParamNames } from '../sql/named-params.js';
import type { Command } from './commands.js';
import { text, withCatalog } from './with-catalog.js';

/**
 * A scraper's saved queries, kept in the data folder's store as `scraper set` keeps a description:
 * the operator's (or the owner's, on the web) to make. Each is served at
 * `/<owner>/<scraper>/queries/<name>` by a running server from its next request.
 */
export const savedQueryCommands: readonly Command[] = [
  {
    name: 'query save',
    args: ['OWNER/SCRAPER', 'NAME', 'SQL'],
    flags: ['title', 'description', 'private'],
    settings: ['maxQueryChars'],
    summary: 'save a query of a scraper, with :named parameters, under a name',
    about:
      'Saves SQL as a query of the scraper named NAME (lower-case letters, digits and -), served at /OWNER/SCRAPER/queries/NAME and listed on the scraper page; ' +
      'its :named parameters are given by name there (?town=Leura), so none may be called key, query, callback, dl, page_size, next or excel. ' +
      'A query already saved under NAME is replaced. --private shows it to its owner only. A scraper has at most 100.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const [scraper, name, sql] = run.args as [string, string, string];
        const saved = await catalog.saveQuery(
          scraper,
          {
            name,
            sql,
            title: text(run.flags.title) ?? '',
            description: text(run.flags.description) ?? '',
            isPrivate: run.flags.private === true,
          },
          run.config.maxQueryChars,
        );
        const params = namedParamNames(saved.sql).map((p) => `:${p}`);
        run.io.stdout(
          `saved ${scraper}/queries/${saved.name} (${saved.isPrivate ? 'private' : 'public'})${params.length > 0 ? `, parameters ${params.join(', ')}` : ''}\n`,
        );
      }),
  },
  {
    name: 'query list',
    args: ['OWNER/SCRAPER'],
    flags: [],
    settings: [],
    summary: "a scraper's saved queries",
    about: "Lists a scraper's saved queries, private ones included: name, visibility, title, and SQL.",
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const queries = await catalog.listQueries(run.args[0]!);
        if (queries.length === 0) run.io.stdout('no saved queries\n');
        for (const q of queries) run.io.stdout(`${q.name}\t${q.isPrivate ? 'private' : 'public'}\t${q.title}\t${JSON.stringify(q.sql)}\n`);
      }),
  },
  {
    name: 'query delete',
    args: ['OWNER/SCRAPER', 'NAME'],
    flags: [],
    settings: [],
    summary: 'delete a saved query',
    about: "Deletes a saved query of the scraper: its page and data URLs answer 404 from a running server's next request.",
    run: (run) =>
      withCatalog(run, async (catalog) => {
        await catalog.removeQuery(run.args[0]!, run.args[1]!);
        run.io.stdout(`deleted ${run.args[0]}/queries/${run.args[1]}\n`);
      }),
  },
];
