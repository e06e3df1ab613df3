import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger } from '../../src/log/lazy-child.js';
import { createLog } from '../../src/log/logger.js';

test("a request's logger makes its child once, when first used, and logs through it at every level", () => {
  const records: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      records.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const parent = createLog({ level: 'trace', format: 'json', stream }).logger;
  let children = 0;
  const counting = Object.create(parent) as FastifyBaseLogger;
  counting.child = (bindings, options) => {
    children += 1;
    return parent.child(bindings, options);
  };
  const log = lazyChildLogger(counting, { reqId: 'r-1' }, {});
  assert.equal(children, 0, 'nothing made before it is used');
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
  for (const level of levels) log[level]({ n: 1 }, `at ${level}`);
  log.silent('never written');
  assert.equal(children, 1, 'one child for all');
  assert.deepEqual(
    records.map((r) => [r.reqId, r.msg, r.n, r.level]),
    levels.map((level) => ['r-1', `at ${level}`, 1, parent.levels.values[level]]),
  );
  assert.equal(log.level, 'trace');
  log.level = 'error';
  log.info('dropped at error');
  assert.equal(records.length, levels.length);
  log.child({ more: 2 }).error('from a grandchild');
  assert.deepEqual([records.at(-1)!.reqId, records.at(-1)!.more], ['r-1', 2]);
});
