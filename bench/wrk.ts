/**
 * The load generator: wrk (Debian package `wrk`), driven by a Lua script written for each load. Each
 * request picks its own `N` and its thread's next key; every response is checked in Lua (status, and
 * the number of rows of a 200), so a server that answers errors fast cannot look fast.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export interface LoadSpec {
  base: string;
  /** The request path; `{id}` is replaced by a random id in [1, maxId] per request, `{key}` by a key. */
  pathTemplate: string;
  maxId: number;
  /** Each wrk thread takes its own share of the keys and uses them in turn, one per request. */
  keys: string[];
  headers?: Record<string, string>;
  expectStatus: 200 | 304;
  /** For a 200: how many times `rowMarker` must appear in the body. */
  expectRows?: number;
  rowMarker?: string;
  connections: number;
  threads: number;
  seconds: number;
  /**
   * false: no Lua response hook, only wrk's own count of statuses other than 2xx/3xx. For the bare
   * ceiling only, whose answer is fixed: the hook costs wrk enough CPU to lower the ceiling, which
   * would flatter the ratio.
   */
  check?: boolean;
}

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses with another status or row count, and socket errors and timeouts (wrk's own count). */
  wrong: number;
  firstWrong: string;
  socketErrors: number;
}

/** Says how to get wrk when it is missing, before anything else runs. */
export function checkWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    // wrk --version exits 1 after printing its version; only a missing binary is fatal.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('the benchmark needs wrk, an HTTP load generator: apt-get install -y wrk (Debian/Ubuntu), brew install wrk (macOS)', {
        cause: err,
      });
    }
  }
}

const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal for these ASCII values

/**
 * Checks each answer: its status, and for a 200 the count of row markers in its body, found as plain
 * text. (Counted with `gsub`, a Lua pattern that copies the body, the check cost wrk so much CPU that
 * the bare server, checked, answered 60 % of its unchecked rate on this 2-core machine: CPU the server
 * measured beside it did not get. Found plainly, it costs nothing measurable.)
 */
const responseHook = `
function response(status, headers, body)
  local ok = status == expectStatus
  if ok and expectRows >= 0 then
    local n, at = 0, 1
    while true do
      local found = body:find(marker, at, true)
      if not found then break end
      n = n + 1
      at = found + #marker
    end
    ok = n == expectRows
  end
  if not ok then
    wrong = wrong + 1
    -- Printable ASCII only: %q in done() would write a newline or a NUL as nothing JSON reads.
    if firstWrong == "" then firstWrong = (status .. " " .. string.sub(body or "", 1, 200)):gsub("[^%w%p ]", "?") end
  end
end
`;

function script(spec: LoadSpec): string {
  if (spec.expectRows !== undefined && !spec.rowMarker) throw new Error('a load that counts rows needs a rowMarker');
  const headers = Object.entries(spec.headers ?? {})
    .map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`)
    .join('\n');
  return `
local keys = { ${spec.keys.map(lua).join(', ')} }
local template = ${lua(spec.pathTemplate)}
local maxId = ${spec.maxId}
local expectStatus = ${spec.expectStatus}
local expectRows = ${spec.expectRows ?? -1}
local marker = ${lua(spec.rowMarker ?? '')}
local threads = {}
-- Counts threads in setup; each thread's own number is the global index set in it (a local of
-- the same name would hide it in init, and every thread would take the first share of the keys).
local started = 0
${headers}

function setup(thread)
  thread:set("index", started)
  started = started + 1
  table.insert(threads, thread)
end

function init(args)
  mine = {}
  for i = 1, #keys do
    if (i - 1) % ${spec.threads} == index then table.insert(mine, keys[i]) end
  end
  if #mine == 0 then mine = keys end
  turn = 0
  wrong = 0
  firstWrong = ""
  math.randomseed(os.time() + index * 7919)
end

function request()
  turn = turn + 1
  local key = mine[(turn % #mine) + 1]
  local p = template:gsub("{key}", key):gsub("{id}", tostring(math.random(1, maxId)))
  return wrk.format("GET", p)
end

${spec.check === false ? '' : responseHook}
function done(summary, latency, requests)
  local w = 0
  local first = ""
  for _, t in ipairs(threads) do
    w = w + t:get("wrong")
    if first == "" then first = t:get("firstWrong") end
  end
  local e = summary.errors
  ${spec.check === false ? 'w = w + e.status' : ''}
  io.write(string.format('RESULT {"requests": %d, "durationUs": %d, "p50Us": %d, "p99Us": %d, "wrong": %d, "socketErrors": %d, "firstWrong": %q}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), w,
    e.connect + e.read + e.write + e.timeout, first))
end
`;
}

/** Runs one load and returns what wrk measured. */
export function runLoad(spec: LoadSpec, workDir: string): Promise<LoadResult> {
  const file = path.join(workDir, `load-${process.hrtime.bigint()}.lua`);
  writeFileSync(file, script(spec));
  const args = [
    '-t',
    String(spec.threads),
    '-c',
    String(spec.connections),
    '-d',
    `${spec.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    file,
    spec.base,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /^RESULT (.*)$/m.exec(out);
      if (code !== 0 || !m) return reject(new Error(`wrk failed (${code}): ${out}`));
      const r = JSON.parse(m[1]!) as {
        requests: number;
        durationUs: number;
        p50Us: number;
        p99Us: number;
        wrong: number;
        socketErrors: number;
        firstWrong: string;
      };
      resolve({
        requests: r.requests,
        perSecond: r.requests / (r.durationUs / 1e6),
        p50Ms: r.p50Us / 1000,
        p99Ms: r.p99Us / 1000,
        wrong: r.wrong,
        firstWrong: r.firstWrong,
        socketErrors: r.socketErrors,
      });
    });
  });
}
