import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { Spool, SpoolBudget } from '../../src/pool/spool.js';
import { tempDir } from '../helpers/fixture-db.js';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(spool: Spool): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let chunk = await spool.read(); chunk; chunk = await spool.read()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

test('chunks come out in order and whole, through memory and the file alike', async () => {
  const budget = new SpoolBudget(64 * 2 ** 20);
  const spool = new Spool({ dir, memoryBytes: 10_000, maxFileBytes: 32 * 2 ** 20, budget });
  const chunks = Array.from({ length: 200 }, (_, i) => randomBytes(1 + ((i * 7919) % 30_000)));
  for (const chunk of chunks) assert.equal(spool.append(chunk), true);
  spool.end();
  assert.ok(budget.used > 0, 'what memory could not hold went to the file');
  assert.deepEqual(await readAll(spool), Buffer.concat(chunks));
  assert.equal(budget.used, 0, 'a file read to its end gives its disk back');
  assert.deepEqual(readdirSync(dir), [], 'the file is never visible in the folder');
  spool.close();
});

test('reading while writing: the reader waits for what has not come yet', async () => {
  const spool = new Spool({ dir, memoryBytes: 1000, maxFileBytes: 2 ** 20, budget: new SpoolBudget(2 ** 20) });
  const got = readAll(spool);
  const sent: Buffer[] = [];
  for (let i = 0; i < 50; i++) {
    const chunk = randomBytes(700);
    sent.push(chunk);
    spool.append(chunk);
    await new Promise((resolve) => setImmediate(resolve));
  }
  spool.end();
  assert.deepEqual(await got, Buffer.concat(sent));
  spool.close();
});

test('full at its own cap, and at the cap all spools share; room again once read or closed', async () => {
  const budget = new SpoolBudget(3000);
  const a = new Spool({ dir, memoryBytes: 0, maxFileBytes: 2000, budget });
  const b = new Spool({ dir, memoryBytes: 0, maxFileBytes: 2000, budget });
  assert.equal(a.append(Buffer.alloc(1500)), true);
  assert.equal(a.append(Buffer.alloc(600)), false, 'over its own cap');
  assert.equal(b.append(Buffer.alloc(1000)), false, 'over the shared budget');
  let resumed = false;
  b.onRoom(() => {
    resumed = true;
  });
  assert.equal((await a.read())!.length, 1500);
  assert.equal((await a.read())!.length, 600);
  assert.equal(resumed, true, 'a drained file frees the shared budget');
  a.close();
  b.close();
  assert.equal(budget.used, 0);
});

test('closing drops what was not read and ends the reader', async () => {
  const budget = new SpoolBudget(2 ** 20);
  const spool = new Spool({ dir, memoryBytes: 0, maxFileBytes: 2 ** 20, budget });
  const waiting = spool.read();
  spool.close();
  assert.equal(await waiting, null);
  spool.append(Buffer.alloc(10));
  assert.equal(budget.used, 0);
});
