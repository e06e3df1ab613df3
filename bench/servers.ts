/**
 * The servers under test, each a real process of its own as in production: `bin/siphon serve` on a
 * data folder (with its query processes as children), the bare node:http baseline
 * (bare-server.ts), and the floors of small queries and 304s (pool-floor.ts, revalidation-floor.ts).
 * The bench reads their CPU and memory from /proc by pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeFlags } from '../src/cli/node-flags.js';

export { tempDir } from '../test/helpers/fixture-db.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');

export interface ServerProcess {
  base: string;
  pid: number;
  /** The serve flags it was started with (said in the report). */
  flags: string[];
  /** Stops it with SIGTERM (a graceful stop) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `node nodeArgs…` and resolves once it prints a line matching `ready` (whose first group is
 * the base URL). Its output is drained and dropped after that: Siphon logs a line per request
 * to stdout, which in production goes to a file or a journal, never into a growing string.
 */
function startProcess(nodeArgs: string[], ready: RegExp, env: NodeJS.ProcessEnv, flags: string[]): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, nodeArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const name = path.basename(nodeArgs.find((a) => !a.startsWith('-')) ?? process.execPath);
  let head = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    stderr = (stderr + s).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in time: ${head}${stderr}`));
    }, 30_000);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready: ${head}${stderr}`));
    });
    const onData = (s: string) => {
      head += s;
      const m = ready.exec(head);
      if (!m) return;
      clearTimeout(timer);
      head = '';
      child.stdout!.off('data', onData).on('data', () => {});
      resolve({
        base: m[1]!,
        pid: child.pid!,
        flags,
        async stop() {
          child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout!.setEncoding('utf8').on('data', onData);
  });
}

/** `bin/siphon --data-dir DIR serve` on a port of its own, with `flags` (limit flags of serve). */
export function startSiphon(dataDir: string, flags: string[], env: NodeJS.ProcessEnv = process.env): Promise<ServerProcess> {
  const cleanEnv = { ...env };
  delete cleanEnv.PORT;
  delete cleanEnv.SIPHON_DATA_DIR;
  return startProcess(
    // Node's flags as bin/siphon's first line has them, as in production.
    [...nodeFlags, path.join(repoRoot, 'bin', 'siphon'), '--data-dir', dataDir, 'serve', '--host', '127.0.0.1', '--port', '0', ...flags],
    // Its start-up record, a JSON line (or the pretty form's text).
    /Siphon is serving .+? at (http:\/\/[^\s"]+)/,
    cleanEnv,
    flags,
  );
}

/** The start-up line of the bare server and the floors. */
const listening = /^listening at (http:\/\/\S+)$/m;

/** The bare node:http baseline, answering every request with the response described in `responseFile`. */
export function startBareServer(responseFile: string): Promise<ServerProcess> {
  return startProcess([path.join(here, 'bare-server.js'), responseFile], listening, process.env, []);
}

/** The floor of small queries (pool-floor.ts): node:http and `processes` child processes running the SQL on `file`, `ahead` sent ahead to each. */
export function startPoolFloor(file: string, processes: number, ahead: number): Promise<ServerProcess> {
  return startProcess([path.join(here, 'pool-floor.js'), file, String(processes), String(ahead)], listening, process.env, []);
}

/** The floor of 304s (revalidation-floor.ts): the least every data call does, for the keys in `keysFile`. */
export function startRevalidationFloor(keysFile: string, workDir: string): Promise<ServerProcess> {
  return startProcess([path.join(here, 'revalidation-floor.js'), keysFile, workDir], listening, process.env, []);
}

/** `GET /{scraper}/data.{format}?key=…&query=…` on `base`, as clients write it. */
export function dataPath(scraper: string, format: string, key: string, sql: string): string {
  return `/${scraper}/data.${format}?key=${encodeURIComponent(key)}&query=${encodeURIComponent(sql)}`;
}
