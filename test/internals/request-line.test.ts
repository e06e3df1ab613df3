import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLog } from '../../src/log/logger.js';

/** A log written to memory, its records as written. */
function memoryLog(level = 'info') {
  const records: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      records.push(chunk.toString());
      done();
    },
  });
  return { log: createLog({ level, format: 'json', stream }), records };
}

const lines: object[] = [
  { method: 'GET', url: '/a/b/data.json?key=[redacted]&query=select%201', route: '/:owner/:scraper/data.:format', status: 200, keyId: 3 },
  { method: 'GET', url: '/x "quoted" \\ back\nline \u2028 é ✓', route: null, status: 304, rows: null, bytes: 0, durationMs: 0.1 },
  { route: '/health', status: 503, code: 'SIPHON_ERR_UNAVAILABLE', format: undefined, ip: '::1', durationMs: 12.3, queueMs: 0 },
  {},
];

test("a request's line is the record pino writes for the same fields, byte for byte but for the time", () => {
  for (const level of ['info', 'warn'] as const) {
    for (const [i, fields] of lines.entries()) {
      const ours = memoryLog();
      const pinos = memoryLog();
      ours.log.requestLine(level, `id-${i}`, fields);
      pinos.log.logger.child({ reqId: `id-${i}` })[level](fields, 'request');
      assert.equal(ours.records.length, 1);
      const withoutTime = (record: string) => record.replace(/"time":\d+/, '"time":0');
      assert.equal(withoutTime(ours.records[0]!), withoutTime(pinos.records[0]!));
      assert.deepEqual(Object.keys(JSON.parse(ours.records[0]!)), Object.keys(JSON.parse(pinos.records[0]!)));
    }
  }
});

test("a request's line follows the log's level", () => {
  const { log, records } = memoryLog('warn');
  log.requestLine('info', 'a', { status: 200 });
  assert.equal(records.length, 0);
  log.requestLine('warn', 'b', { status: 499 });
  assert.equal(JSON.parse(records[0]!).level, 40);
});
