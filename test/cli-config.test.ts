/**
 * serve's settings through the real bin/siphon: each by flag and by environment variable, the flag
 * winning over the variable over the default (`--print-config` shows which), every invalid value
 * refused in one line naming the setting's flag and variable (each setting checked in-process, the
 * process's answer shown for three), the values reaching the running server, and docs/cli.md's table
 * listing every setting as the table of settings says.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { allSettings, defaultValue, envName, resolveSettings, SettingInvalid, type Setting } from '../src/config/settings.js';
import { commands } from '../src/cli/commands.js';
import { addUser, runCli, runCliOk, startServe } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { repoRoot } from './helpers/paths.js';
import { dataUrl } from './helpers/server.js';

/**
 * For every setting: a valid text other than its default, as given by its variable and by its flag
 * (in the flag's unit), how `--print-config` shows each, and a text it refuses. A setting added
 * without an entry here fails the first test.
 */
const samples: Record<string, { env: [string, string]; flag: [string, string]; bad: string }> = {
  'data-dir': { env: ['/tmp/siphon-env-data', '/tmp/siphon-env-data'], flag: ['/tmp/siphon-flag-data/', '/tmp/siphon-flag-data'], bad: '' },
  // Shown without its user and password; an invalid one is not repeated (it may hold a password).
  'database-url': {
    env: ['postgres://siphon:pw@db.example.org:5432/siphon', 'postgres://db.example.org:5432/siphon'],
    flag: ['postgresql://localhost/other', 'postgresql://localhost/other'],
    bad: 'mysql://root:pw@localhost/x',
  },
  port: { env: ['4001', '4001'], flag: ['4002', '4002'], bad: '65536' },
  host: { env: ['0.0.0.0', '0.0.0.0'], flag: ['::1', '::1'], bad: 'two words' },
  'public-url': {
    env: ['https://env.example.org/', 'https://env.example.org'],
    flag: ['http://flag.example.org/data', 'http://flag.example.org/data'],
    bad: 'https://x.example.org/?q=1',
  },
  'trust-proxy': { env: ['loopback', 'loopback'], flag: ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8,127.0.0.1'], bad: '10.0.0.0/33' },
  'log-level': { env: ['warn', 'warn'], flag: ['debug', 'debug'], bad: 'loud' },
  'log-format': { env: ['pretty', 'pretty'], flag: ['json', 'json'], bad: 'xml' },
  'metrics-port': { env: ['9464', '9464'], flag: ['0', '0'], bad: '-1' },
  // Never shown: --print-config hides it, and an invalid one is not repeated.
  'metrics-token': { env: ['env-token-0123456789', '[hidden]'], flag: ['flag-token-0123456789', '[hidden]'], bad: 'too short' },
  'query-timeout': { env: ['2.5', '2.5'], flag: ['20', '20'], bad: '0' },
  'max-response-seconds': { env: ['60', '60'], flag: ['1200', '1200'], bad: '9999999' },
  'client-idle-timeout': { env: ['5', '5'], flag: ['90', '90'], bad: '0.0001' },
  'queue-timeout': { env: ['10', '10'], flag: ['300', '300'], bad: '301' },
  'import-timeout': { env: ['30', '30'], flag: ['600', '600'], bad: 'soon' },
  'query-processes': { env: ['3', '3'], flag: ['9', '9'], bad: '2.5' },
  'long-queries': { env: ['1', '1'], flag: ['7', '7'], bad: '0' },
  'key-concurrency': { env: ['1', '1'], flag: ['5', '5'], bad: '-1' },
  'key-queue': { env: ['4', '4'], flag: ['40', '40'], bad: '1e400' },
  'queue-limit': { env: ['20', '20'], flag: ['2000', '2000'], bad: ' ' },
  'rate-limit': { env: ['0', '0'], flag: ['60', '60'], bad: '-5' },
  'pages-per-minute': { env: ['0', '0'], flag: ['30', '30'], bad: '1.5' },
  'max-pending-downloads': { env: ['100', '100'], flag: ['50000', '50000'], bad: 'many' },
  'max-query-chars': { env: ['500', '500'], flag: ['200000', '200000'], bad: '1000001' },
  'max-publish-mb': { env: ['0.5', '0.5'], flag: ['2048', '2048'], bad: '0' },
  'query-memory-mb': { env: ['1024', '1024'], flag: ['4096', '4096'], bad: 'NaN' },
  'query-temp-mb': { env: ['64', '64'], flag: ['1024', '1024'], bad: 'Infinity' },
  'disk-reserve-mb': { env: ['0', '0'], flag: ['1024', '1024'], bad: '-1' },
  'spool-response-mb': { env: ['16', '16'], flag: ['1024', '1024'], bad: '0' },
  'spool-total-mb': { env: ['256', '256'], flag: ['4096', '4096'], bad: '-1' },
  'export-range-rows': { env: ['0', '0'], flag: ['4096', '4096'], bad: '1.5' },
  'queries-ahead': { env: ['0', '0'], flag: ['2', '2'], bad: '-1' },
  signup: { env: ['closed', 'closed'], flag: ['closed', 'closed'], bad: 'Open' },
  'session-lifetime': { env: ['3600', '3600'], flag: ['86400', '86400'], bad: '0' },
  'login-failures': { env: ['3', '3'], flag: ['10', '10'], bad: '0' },
  'login-failures-per-address': { env: ['20', '20'], flag: ['200', '200'], bad: '1.5' },
  'login-window': { env: ['60', '60'], flag: ['3600', '3600'], bad: 'an hour' },
  'signups-per-address': { env: ['0', '0'], flag: ['3', '3'], bad: '-1' },
  'keep-versions': { env: ['1', '1'], flag: ['1000', '1000'], bad: '1001' },
  'keep-days': { env: ['0', '0'], flag: ['3650', '3650'], bad: '3651' },
  'max-keep-versions': { env: ['3', '3'], flag: ['50', '50'], bad: '0' },
};

/** `serve --print-config`'s lines, by setting: value and source. */
async function printConfig(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Map<string, { value: string; source: string }>> {
  const r = await runCli(['serve', '--print-config', ...args], { env, cwd });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const lines = r.stdout.trimEnd().split('\n');
  const shown = new Map(
    lines.map((line) => {
      const m = /^([a-z-]+) = (.*) \(source: (flag|env|default)\)$/.exec(line);
      assert.ok(m, `a line of --print-config: ${JSON.stringify(line)}`);
      return [m[1]!, { value: m[2]!, source: m[3]! }];
    }),
  );
  assert.equal(shown.size, lines.length, 'one line per setting');
  return shown;
}

describe('serve --print-config', () => {
  test('every setting has a sample here, a flag of its own and the variable SIPHON_ + its flag', () => {
    assert.deepEqual(Object.keys(samples).sort(), allSettings.map((s) => s.flag).sort());
    for (const setting of allSettings) assert.equal(envName(setting), `SIPHON_${setting.flag.toUpperCase().replaceAll('-', '_')}`);
  });

  test('defaults, then each variable, then each flag over the variables; nothing is created and nothing served', async () => {
    const cwd = tempDir();
    const defaults = await printConfig([], {}, cwd);
    assert.deepEqual(
      [...defaults.keys()],
      allSettings.map((s) => s.flag),
      'every setting, in the order of the table',
    );
    for (const setting of allSettings) {
      const value = defaults.get(setting.flag)!;
      assert.equal(value.source, 'default', setting.flag);
      // The data folder's default is ./data of the command's working folder, checked below.
      if (setting.key !== 'dataDir') assert.equal(value.value, setting.show(defaultValue(setting.key) as never), setting.flag);
    }
    assert.equal(defaults.get('data-dir')!.value, path.join(cwd, 'data'), 'the data folder is ./data');
    assert.equal(defaults.get('query-timeout')!.value, '10', "in the flag's unit: seconds");
    assert.equal(defaults.get('max-publish-mb')!.value, '512', "in the flag's unit: megabytes");

    const env = Object.fromEntries(allSettings.map((s) => [envName(s), samples[s.flag]!.env[0]]));
    const fromEnv = await printConfig([], env, cwd);
    for (const setting of allSettings) {
      assert.deepEqual(fromEnv.get(setting.flag), { value: samples[setting.flag]!.env[1], source: 'env' }, setting.flag);
    }

    const flags = allSettings.flatMap((s) => [`--${s.flag}`, samples[s.flag]!.flag[0]]);
    const fromFlags = await printConfig(flags, env, cwd);
    for (const setting of allSettings) {
      assert.deepEqual(fromFlags.get(setting.flag), { value: samples[setting.flag]!.flag[1], source: 'flag' }, setting.flag);
    }
    assert.equal(existsSync(path.join(cwd, 'data')), false);
    for (const dir of ['/tmp/siphon-env-data', '/tmp/siphon-flag-data']) assert.equal(existsSync(dir), false, `${dir} was not created`);
  });

  test('PORT still sets the port when SIPHON_PORT is unset; SIPHON_PORT wins over it; an empty variable counts as unset', async () => {
    const cwd = tempDir();
    assert.deepEqual((await printConfig([], { PORT: '4100' }, cwd)).get('port'), { value: '4100', source: 'env' });
    assert.deepEqual((await printConfig([], { PORT: '4100', SIPHON_PORT: '4200' }, cwd)).get('port'), { value: '4200', source: 'env' });
    assert.deepEqual((await printConfig([], { SIPHON_QUERY_TIMEOUT: '' }, cwd)).get('query-timeout'), { value: '10', source: 'default' });
  });
});

/** The one line bin/siphon prints for an invalid value, as asserted below. */
function assertRefusal(line: string, setting: Setting, from: string, also: string): void {
  const { bad } = samples[setting.flag]!;
  const shown = setting.secret ? 'the value given' : JSON.stringify(bad);
  assert.ok(line.startsWith(`${from} must be `), line);
  assert.ok(line.includes(`, not ${shown} (the setting ${setting.flag}, also ${also})`), line);
  if (setting.secret) assert.ok(!line.includes(bad), 'a secret was repeated');
}

describe('an invalid value: refused in one line naming the setting by its flag and its variable', () => {
  // Every setting, by flag and by variable, through the resolution bin/siphon runs before any
  // command (src/cli/main.ts); in-process, as ~80 processes would cost ~7 s of CPU for what the
  // three runs of the real bin/siphon below show of the process itself.
  for (const setting of allSettings) {
    test(setting.flag, () => {
      const { bad } = samples[setting.flag]!;
      const variable = envName(setting);
      for (const [flags, env, from, also] of [
        [{ [setting.flag]: bad }, {}, `--${setting.flag}`, `$${variable}`],
        [{}, { [variable]: bad }, `$${variable}`, `--${setting.flag} ${setting.metavar}`],
      ] as [Record<string, string>, Record<string, string>, string, string][]) {
        if (bad === '' && from.startsWith('$')) continue; // an empty variable is unset
        assert.throws(
          () => resolveSettings([setting.key], flags, env),
          (err: unknown) => {
            assert.ok(err instanceof SettingInvalid, String(err));
            assert.ok(!err.message.includes('\n'), `one line: ${err.message}`);
            assertRefusal(err.message, setting, from, also);
            return true;
          },
        );
      }
    });
  }

  test('bin/siphon serve: exit 1, the line on stderr, nothing on stdout, nothing created', async () => {
    const bySetting = (flag: string) => allSettings.find((s) => s.flag === flag)!;
    for (const [setting, args, env, from, also] of [
      [bySetting('port'), ['--port=65536'], {}, '--port', '$SIPHON_PORT'],
      [bySetting('query-timeout'), [], { SIPHON_QUERY_TIMEOUT: '0' }, '$SIPHON_QUERY_TIMEOUT', '--query-timeout SECONDS'],
      [bySetting('metrics-token'), ['--metrics-token', 'too short'], {}, '--metrics-token', '$SIPHON_METRICS_TOKEN'],
    ] as [Setting, string[], Record<string, string>, string, string][]) {
      const cwd = tempDir();
      const r = await runCli(['serve', ...args], { env, cwd });
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
      assert.ok(r.stderr.startsWith('siphon: '), r.stderr);
      assertRefusal(r.stderr.slice('siphon: '.length).trimEnd(), setting, from, also);
      assert.equal(existsSync(path.join(cwd, 'data')), false);
    }
  });
});

describe('the settings reach the running server', () => {
  const sourceDir = tempDir();
  const db = makeDb(sourceDir, 'small.sqlite', 'create table t (x integer); insert into t values (1);');

  test('SIPHON_MAX_QUERY_CHARS bounds the SQL; --log-level warn leaves requests unlogged; SIPHON_CLIENT_IDLE_TIMEOUT drops a stalled request with 408', async () => {
    const dataDir = tempDir();
    const key = await addUser(dataDir, 'alice');
    await runCliOk(['scraper', 'add', 'alice/small', '--db', db], { dataDir });
    const server = await startServe(['--port', '0', '--log-level', 'warn'], {
      dataDir,
      env: { SIPHON_MAX_QUERY_CHARS: '20', SIPHON_CLIENT_IDLE_TIMEOUT: '1', SIPHON_LOG_LEVEL: 'info' },
    });
    try {
      const fits = await fetch(dataUrl(server.base, 'alice/small', 'json', { key, query: 'select x from t' }));
      assert.equal(fits.status, 200);
      const long = await fetch(dataUrl(server.base, 'alice/small', 'json', { key, query: 'select x, x, x, x from t' }));
      assert.equal(long.status, 400);
      assert.equal(long.headers.get('siphon-error-code'), 'SIPHON_ERR_QUERY_TOO_LONG');
      assert.match(((await long.json()) as { error: string }).error, /longer than 20 characters/);
      assert.doesNotMatch(server.stdout(), /"msg":"request"/, 'info lines are not written at warn');

      // Headers that never finish: answered 408 once the client idle time has passed.
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
        let text = '';
        socket.setEncoding('utf8').on('data', (s: string) => {
          text += s;
        });
        socket.on('close', () => resolve(text)).on('error', reject);
      });
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.match(answer, /SIPHON_ERR_REQUEST_TIMEOUT/);
      assert.match(answer, /within 1 s|took longer than 1 s/);
    } finally {
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
    }
  });

  test('an address that cannot be listened on is one line and exit 1, not a hang or a stack', async () => {
    const dataDir = tempDir();
    const first = await startServe(['--port', '0'], { dataDir });
    try {
      const r = await runCli(['serve', '--port', String(first.port)], { dataDir });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^siphon: listen EADDRINUSE: address already in use 127\.0\.0\.1:\d+\n$/);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });
});

/** docs/cli.md's Configuration table, as the table of settings says it should read. */
function expectedTableRows(): string[] {
  return allSettings.map((s: Setting) => {
    const variables = [envName(s), ...(s.fallbackEnv ?? [])].map((v) => `\`${v}\``).join(' (or ') + (s.fallbackEnv?.length ? ')' : '');
    const shown = s.defaultDoc ?? s.show(defaultValue(s.key) as never);
    return `| ${s.doc} | \`--${s.flag} ${s.metavar}\` | ${variables} | ${s.unit} | ${shown} |`;
  });
}

test("docs/cli.md's Configuration table lists every setting as src/config/settings.ts has it", () => {
  const doc = readFileSync(path.join(repoRoot, 'docs', 'cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Configuration\n'));
  const table = section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| setting '))
    .slice(0, allSettings.length);
  const expected = expectedTableRows();
  assert.deepEqual(table, expected, `docs/cli.md's table should read:\n${expected.join('\n')}`);
});

test('help and --version', async () => {
  const cwd = tempDir();
  const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  assert.deepEqual(await runCli(['--version'], { cwd, ownProcess: true }), {
    code: 0,
    signal: null,
    stdout: `siphon ${version}\n`,
    stderr: '',
  });
  const serveHelp = await runCliOk(['help', 'serve'], { cwd });
  assert.equal(await runCliOk(['serve', '--help'], { cwd }), serveHelp);
  for (const setting of allSettings) {
    assert.ok(serveHelp.includes(`--${setting.flag} ${setting.metavar} `), `serve --help lists --${setting.flag}`);
    assert.ok(serveHelp.includes(`$${envName(setting)};`), `serve --help names $${envName(setting)}`);
  }
  for (const command of commands) {
    const help = await runCliOk(['help', ...command.name.split(' ')], { cwd });
    assert.ok(help.startsWith(`Usage: siphon ${command.name}`), help);
    assert.equal(await runCliOk([...command.name.split(' '), '--help'], { cwd }), help, `${command.name} --help`);
    for (const flag of command.flags) assert.ok(help.includes(`--${flag}`), `help ${command.name} lists --${flag}`);
  }
  assert.equal(existsSync(path.join(cwd, 'data')), false, 'asking for help creates no data folder');
});
