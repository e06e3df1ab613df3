import { spawn, type ChildProcess } from 'node:child_process';

export interface ProcessLimits {
  /** Address space (`ulimit -v`): a process needing more fails its allocations instead of taking the machine's memory. */
  memoryMb: number;
  /** Largest file the process may write (`ulimit -f`); a write past it fails with EFBIG (Node ignores SIGXFSZ). */
  fileMb?: number;
  /**
   * CPU time (`ulimit -S -t`), past which the kernel ends the process with SIGXCPU: a bound that holds
   * even when nobody is left to kill it (its parent killed outright).
   */
  cpuSeconds?: number;
  env?: Record<string, string>;
  /** Options for Node itself (V8's), before the script. */
  nodeFlags?: readonly string[];
  /** The process answers some other way: its stdout goes nowhere. */
  noStdout?: boolean;
}

/** Output a process wrote to stderr, kept to say why it died. */
const keptStderrChars = 4000;

export interface LimitedProcess {
  proc: ChildProcess;
  /** The end of what the process wrote to stderr (it is also passed on to ours). */
  stderrTail(): string;
}

/**
 * How the shell becomes Node: through util-linux's `setpriv` where there is one, which asks the
 * kernel to kill the process when its parent dies (the parent-death signal, kept across `exec`). A
 * process deep in one SQLite step reads nothing, so it would not see its server die (killed
 * outright, or crashed) and would run on alone; a process that reads sees it and exits itself.
 */
const execNode = 'if command -v setpriv >/dev/null 2>&1; then exec setpriv --pdeathsig KILL "$0" "$@"; else exec "$0" "$@"; fi';

/**
 * The shell, then Node after it, asks to be scheduled as a batch process (SCHED_BATCH, through
 * util-linux's `chrt`): one that, woken, waits for the running one's turn to end rather than take
 * its core at once. What these processes do (a query, an import) is work the server hands out and
 * waits for; the server's own thread answers every client, and a query process woken with a job
 * took its core from it 0.4 times per small query. Measured in the bench's small-query load on 2
 * cores, in four alternated pairs: 7–14 % more a second, fewer µs per query in the server and in
 * the query processes; and no fewer with other programs keeping both cores busy, where a pool that
 * woke a process per query had lost two thirds of its small queries a second under SCHED_BATCH. Any
 * user may ask it for its own processes; where `chrt` is missing or refused, they run as before.
 */
const batchPolicy = '{ chrt --batch --pid 0 $$ >/dev/null 2>&1 || true; }';

/**
 * Starts `node script` under resource limits, with an IPC channel. The limits are set by the shell
 * that then `exec`s Node, so they apply to that process only and its pid stays the one we kill; it
 * is scheduled as a batch process (`batchPolicy`) and dies with its parent (`execNode`). stdout is a
 * pipe (the caller reads it), unless `noStdout`; stderr is passed on to ours and its end kept.
 */
export function spawnLimited(script: string, limits: ProcessLimits): LimitedProcess {
  // POSIX sh counts `ulimit -f` in 512-byte blocks and `ulimit -v` in KiB.
  const ulimits = [`ulimit -v ${Math.round(limits.memoryMb * 1024)}`];
  if (limits.fileMb !== undefined) ulimits.push(`ulimit -f ${Math.round(limits.fileMb * 2048)}`);
  // Soft limit only: at a hard limit the kernel sends SIGKILL, which would not say why.
  if (limits.cpuSeconds !== undefined) ulimits.push(`ulimit -S -t ${Math.ceil(limits.cpuSeconds)}`);
  const proc = spawn(
    '/bin/sh',
    ['-c', `${ulimits.join(' && ')} && ${batchPolicy} && ${execNode}`, process.execPath, ...(limits.nodeFlags ?? []), script],
    {
      stdio: ['ignore', limits.noStdout ? 'ignore' : 'pipe', 'pipe', 'ipc'],
      // glibc gives each thread a 64 MB malloc arena of address space; V8's threads alone would take
      // ~1 GB of the cap before any work is done (measured: 1000 MB idle, 730 MB with 2 arenas).
      env: { ...process.env, MALLOC_ARENA_MAX: '2', ...limits.env },
    },
  );
  let tail = '';
  proc.stderr!.setEncoding('utf8').on('data', (text: string) => {
    process.stderr.write(text);
    tail = (tail + text).slice(-keptStderrChars);
  });
  return { proc, stderrTail: () => tail };
}
