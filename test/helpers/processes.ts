import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** What a child process has printed so far. Both pipes are always drained: a full one would stall it. */
export function collectOutput(child: ChildProcess): { stdout(): string; stderr(): string } {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
  });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
  });
  return { stdout: () => stdout, stderr: () => stderr };
}

/** Runs a program to its end with `input` on its stdin (closed at once without), and collects what it printed. */
export function runToEnd(
  command: string,
  args: readonly string[],
  opts: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const output = collectOutput(child);
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: output.stdout(), stderr: output.stderr() }));
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * A process's state letter (`R`, `S`, `Z` for a zombie…), parent and CPU time so far (user and
 * system, in clock ticks), from /proc; undefined once it is gone.
 */
function procStat(pid: number): { state: string; ppid: number; cpuTicks: number; policy: number } | undefined {
  try {
    // The command name (2nd field, in parentheses) may hold spaces: fields are counted after it.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5), utime and stime, are the 12th and 13th after the name; field 41, the scheduling policy, the 39th.
    return { state: fields[0]!, ppid: Number(fields[1]), cpuTicks: Number(fields[11]) + Number(fields[12]), policy: Number(fields[38]) };
  } catch {
    return undefined;
  }
}

/** The CPU time a process has used so far, user and system, in clock ticks (10 ms); undefined once it is gone. */
export function cpuTicks(pid: number): number | undefined {
  return procStat(pid)?.cpuTicks;
}

/** Of `pids`, those that used CPU during the next `ms`: the ones at work. */
export async function working(pids: readonly number[], ms: number): Promise<number[]> {
  const before = new Map(pids.map((pid) => [pid, cpuTicks(pid)]));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return pids.filter((pid) => {
    const [was, now] = [before.get(pid), cpuTicks(pid)];
    return was !== undefined && now !== undefined && now > was;
  });
}

/** Linux's scheduling policies, as /proc/PID/stat numbers them. */
export const schedulingPolicies = { normal: 0, batch: 3 } as const;

/** The process's scheduling policy (`schedulingPolicies`); undefined once it is gone. */
export function schedulingPolicy(pid: number): number | undefined {
  return procStat(pid)?.policy;
}

/** Whether the process is still running (an exited process nobody has reaped yet, a zombie, is not). */
export function isRunning(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** The running processes of `parent` whose command line names `script`. */
export function childrenRunning(script: string, parent = process.pid): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      if (procStat(pid)?.ppid !== parent || !isRunning(pid)) return false;
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(script);
      } catch {
        return false;
      }
    });
}

/** The running import processes (src/scrapers/import-child.ts) whose parent is `parent`. */
export const importProcesses = (parent = process.pid) => childrenRunning('import-child.js', parent);

/** Pids of a process's children (a server's query and import processes), from every thread's list: a child belongs to the thread that made it. */
export function childPids(pid: number): number[] {
  const pids = new Set<number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      for (const p of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (p) pids.add(Number(p));
    }
  } catch {
    // gone
  }
  return [...pids];
}

/** Resident set size of a process in bytes, or 0 if it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of a process and all its descendants (a server's query and import processes), in bytes. */
export function treeResidentBytes(pid = process.pid): number {
  return rssOf(pid) + childPids(pid).reduce((sum, child) => sum + treeResidentBytes(child), 0);
}

/**
 * The address space (MB) of an idle Node process like a query process (glibc's arenas capped as
 * they are there): ~730 MB on Node 20 and 22, ~1,120 MB on Node 24, whose V8 reserves more at start.
 * A test's memory cap is this plus what its work may take.
 */
export async function idleNodeAddressSpaceMb(): Promise<number> {
  const script = "process.stdout.write(/VmSize:\\s*(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1])";
  const ran = await runToEnd(process.execPath, ['-e', script], { env: { ...process.env, MALLOC_ARENA_MAX: '2' } });
  return Math.ceil(Number(ran.stdout) / 1024);
}
