/**
 * `npm start` in a terminal, in a real pseudo-terminal (util-linux's `script`): readable lines for a
 * person, the addresses, the demo key and a curl line that a shell runs as it is, pasted; requests as
 * readable lines with no key; Ctrl-C stops it. `--log-format json` keeps JSON records in a terminal.
 * (Without a terminal, JSON records: log-output.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startServe, waitFor, type ServeProcess } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';

/** What the terminal showed, as lines (a terminal ends its lines with CR LF). */
const screen = (server: ServeProcess) => server.stdout().replaceAll('\r\n', '\n').split('\n');

/** Ctrl-C at the keyboard: the terminal sends SIGINT to serve, which stops gracefully. */
async function pressCtrlC(server: ServeProcess): Promise<void> {
  server.child.stdin!.write('\x03');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
}

test('in a terminal: the addresses, the demo key and a curl line that runs as pasted, then requests as lines without the key', async () => {
  const server = await startServe(['--demo', '--port', '0'], { dataDir: tempDir(), terminal: true });
  try {
    const { base } = server;
    await waitFor(() => server.stdout().includes('Ctrl-C stops.'), 10_000);
    const lines = screen(server);
    for (const line of [
      `  Scrapers    ${base}/`,
      `  API docs    ${base}/docs`,
      `  Data API    ${base}/{owner}/{scraper}/data.{format}?key={key}&query={sql}`,
      `  Demo        ${base}/demo/planning-applications`,
    ]) {
      assert.ok(lines.includes(line), `no line ${JSON.stringify(line)} in:\n${lines.join('\n')}`);
    }
    const key = /^ {2}Demo key {4}(sph_\S+) \(read-only/m.exec(lines.join('\n'))?.[1];
    assert.ok(key, 'the demo key is shown');
    const curlLines = lines.filter((l) => /^\s*curl /.test(l));
    assert.equal(curlLines.length, 1);
    assert.ok(
      lines.every((l) => !l.startsWith('{')),
      'no JSON record',
    );

    // Pasted into a shell as it is: three rows of the demo's data.
    const { stdout } = await promisify(execFile)('sh', ['-c', `${curlLines[0]} --silent --show-error --fail`]);
    const rows = JSON.parse(stdout) as { title: string; date: string }[];
    assert.equal(rows.length, 3);
    assert.deepEqual(Object.keys(rows[0]!), ['title', 'date']);

    // Its request, as a readable line, the key in its URL redacted.
    const logged = /^\S+Z INFO {2}request reqId=\S+ method=GET url="?\/demo\/planning-applications\/data\.json\?key=\[redacted\]&query=/m;
    await waitFor(() => logged.test(screen(server).join('\n')), 10_000);
    // The key only where the start-up shows it to the person who started the demo.
    assert.deepEqual(
      screen(server).filter((l) => l.includes(key)),
      [lines.find((l) => l.startsWith('  Demo key')), curlLines[0]],
    );
  } finally {
    await pressCtrlC(server);
  }
  assert.match(server.stdout(), /INFO {2}stopped\r?\n$/);
});

test('in a terminal with --log-format json: JSON records, as without one', async () => {
  const server = await startServe(['--port', '0', '--log-format', 'json'], { dataDir: tempDir(), terminal: true });
  await pressCtrlC(server);
  // The terminal echoes the Ctrl-C as `^C`, before the next record.
  const lines = screen(server)
    .map((l) => l.replace(/^\^C/, ''))
    .filter((l) => l !== '');
  const records = lines.map((l) => JSON.parse(l) as { msg: string; url?: string });
  assert.equal(records.find((r) => r.msg.startsWith('Siphon is serving'))?.url, server.base);
  assert.equal(records.at(-1)!.msg, 'stopped');
});
