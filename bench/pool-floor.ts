/**
 * The floor of small queries on this machine: bare node:http and `processes` child processes, each
 * running the query's SQL with better-sqlite3 and answering its rows as `JSON.stringify` text, one
 * query at a time per process, with as many more sent ahead to it as Siphon's pool sends
 * (`--queries-ahead`): a process that always has its next query does not sleep between them. The next
 * request waits for a process with room. Nothing else: no key, no checks, no fairness, no limits, no
 * log, no download. What Siphon answers per second can only be less; the bench compares both with
 * the same ceiling.
 *
 * `node pool-floor.js FILE PROCESSES AHEAD` serves; its children are this file with `--child FILE`.
 */
import Database from 'better-sqlite3';
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

interface Job {
  id: number;
  sql: string;
}

function child(file: string): void {
  const db = new Database(file, { readonly: true });
  process.on('message', ({ id, sql }: Job) => {
    process.send!({ id, body: JSON.stringify(db.prepare(sql).all()) });
  });
  process.on('disconnect', () => process.exit(0));
}

function serve(file: string, processes: number, ahead: number): void {
  /** A process for each query it may take more: it runs one and holds `ahead`. */
  const room: ChildProcess[] = [];
  const waiting: { sql: string; res: http.ServerResponse }[] = [];
  const answering = new Map<number, http.ServerResponse>();
  let nextId = 0;
  const dispatch = () => {
    while (room.length > 0 && waiting.length > 0) {
      const { sql, res } = waiting.shift()!;
      const id = nextId++;
      answering.set(id, res);
      room.shift()!.send({ id, sql } satisfies Job);
    }
  };
  const children = Array.from({ length: processes }, () => {
    const c = fork(fileURLToPath(import.meta.url), ['--child', file]);
    c.on('message', ({ id, body }: { id: number; body: string }) => {
      const res = answering.get(id)!;
      answering.delete(id);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
      room.push(c);
      dispatch();
    });
    return c;
  });
  // In turns, so that a few requests go to as many processes.
  for (let i = 0; i <= ahead; i++) room.push(...children);
  const server = http.createServer((req, res) => {
    waiting.push({ sql: new URL(req.url!, 'http://floor').searchParams.get('query') ?? '', res });
    dispatch();
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') process.stdout.write(`listening at http://127.0.0.1:${address.port}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv[2] === '--child') child(process.argv[3]!);
else serve(process.argv[2]!, Number(process.argv[3]), Number(process.argv[4]));
