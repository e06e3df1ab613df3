/**
 * The floor of 304s on this machine: a Fastify route doing the least every data call must do before
 * it answers 304, each step in the cheapest form found: find the key by its hash, make the ETag (a
 * hash of the query), record the download (its spool line written before the answer, in one write
 * per turn of the event loop for every answer of that turn; a batched insert every 100 ms after),
 * one JSON log line per request (built by hand, written 8 KB at a time), and answer with Siphon's
 * headers. No scraper lookup, no SQL check, no metrics: what Siphon answers per second can only be
 * less; the bench compares both with the same ceiling.
 *
 * `node revalidation-floor.js KEYS_FILE WORK_DIR` serves; KEYS_FILE is a JSON list of the keys.
 */
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { hash } from 'node:crypto';
import { openSync, readFileSync, write, writeSync } from 'node:fs';
import path from 'node:path';

const [keysFile, workDir] = process.argv.slice(2) as [string, string];
const keyIds = new Map<string, number>();
for (const [i, key] of (JSON.parse(readFileSync(keysFile, 'utf8')) as string[]).entries()) keyIds.set(hash('sha256', key, 'base64url'), i);

interface Download {
  keyId: number;
  at: string;
  query: string;
  durationMs: number;
}

const db = new Database(path.join(workDir, 'floor.db'));
db.pragma('journal_mode = WAL');
db.exec(
  'create table downloads (id integer primary key, key_id integer, at text, format text, query text, status integer, duration_ms real)',
);
const insert = db.prepare('insert into downloads (key_id, at, format, query, status, duration_ms) values (?, ?, ?, ?, ?, ?)');
let batch: Download[] = [];
const insertBatch = db.transaction((downloads: Download[]) => {
  for (const d of downloads) insert.run(d.keyId, d.at, 'json', d.query, 304, d.durationMs);
});
setInterval(() => {
  insertBatch(batch);
  batch = [];
}, 100);

const spool = openSync(path.join(workDir, 'floor-spool'), 'a');
/** This turn's downloads, spooled together before any of their answers is sent. */
let turn: { line: string; answer: () => void }[] = [];
function endTurn(): void {
  const answers = turn;
  turn = [];
  writeSync(spool, answers.map((a) => a.line).join(''));
  for (const a of answers) a.answer();
}

let logText = '';
function logLine(line: string): void {
  logText += line;
  if (logText.length < 8 * 1024) return;
  write(1, logText, () => {});
  logText = '';
}

const app = Fastify();
app.get<{ Querystring: { key: string; query: string } }>('/:owner/:scraper/data.:format', (request, reply) => {
  const startedAt = performance.now();
  const keyId = keyIds.get(hash('sha256', request.query.key, 'base64url'));
  if (keyId === undefined) throw new Error('unknown key');
  const etag = `W/"${hash('sha256', JSON.stringify({ scraper: 1, version: 1, sql: request.query.query, format: 'json' }), 'base64url').slice(0, 27)}"`;
  const download = { keyId, at: new Date().toISOString(), query: request.query.query, durationMs: performance.now() - startedAt };
  batch.push(download);
  reply.hijack();
  const answer = () => {
    const status = request.headers['if-none-match'] === etag ? 304 : 200;
    reply.raw
      .writeHead(status, {
        'x-request-id': request.id,
        'cache-control': 'private, no-cache',
        'x-content-type-options': 'nosniff',
        'x-accel-buffering': 'no',
        vary: 'Accept-Encoding',
        etag,
        'last-modified': 'Wed, 25 Nov 2026 10:00:00 GMT',
      })
      .end();
    const url = JSON.stringify(request.url.replace(/key=[^&]*/, 'key=[redacted]'));
    const ms = (performance.now() - startedAt).toFixed(1);
    logLine(
      `{"level":30,"time":${Date.now()},"msg":"request","method":"GET","url":${url},"status":${status},"keyId":${keyId},"durationMs":${ms}}\n`,
    );
  };
  if (turn.length === 0) setImmediate(endTurn);
  turn.push({ line: `${JSON.stringify(download)}\n`, answer });
});
app.listen({ port: 0, host: '127.0.0.1' }).then(
  (address) => process.stdout.write(`listening at ${address}\n`),
  (err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  },
);
process.on('SIGTERM', () => process.exit(0));
