/**
 * Loads on several servers measured in turn, a short slice each, round after round, so that every
 * figure compared in one ratio saw the same minutes of the machine. This virtual machine's speed
 * drifts by a quarter or more from one minute to the next (the same server: 8,918 then 14,425 304s
 * a second four minutes later): measured one after the other, a
 * ceiling and the server held to it could land on a fast minute and a slow one. Slices are not
 * shorter than 2 s of warm-up and 4 s measured: Siphon's small queries, measured 2 s after 1 s of
 * warm-up, answered 1,681 a second against 2,130 in 8 s runs alternated with them.
 *
 * A load's first slice has a longer warm-up (`firstWarmupSeconds`), every server's alike: a server
 * new to a load runs its code cold, in every one of its processes. Siphon's small queries on a
 * server fresh from its exports, in 2 s slices one after the other: 974, 2,133, then 3,124 and
 * around it a second; a first round measured 2 s in came out at 0.80× of the second (six pairs),
 * where the ceiling's few lines are hot at once.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { cpuBetween, cpuSnapshot, median, type Cores } from './proc-stats.js';
import type { ServerProcess } from './servers.js';
import { runLoad, type LoadResult, type LoadSpec } from './wrk.js';

export const rounds = 2;
/** Each slice's wrk warm-up (new connections, the server's caches), then its measured seconds. */
export const warmupSeconds = 2;
/** The warm-up before a load's first slice. */
export const firstWarmupSeconds = 5;
export const sliceSeconds = 4;

export type MeasuredLoad = LoadResult & { cores: Cores };

interface Slice {
  load: LoadResult;
  cores: Cores;
  wallMs: number;
}

/**
 * Every load's slices as one: requests over the measured seconds of all its slices, the CPU over
 * them, the median slice's p50 and the worst slice's p99.
 */
function combined(slices: Slice[]): MeasuredLoad {
  const requests = slices.reduce((sum, s) => sum + s.load.requests, 0);
  const seconds = slices.reduce((sum, s) => sum + s.load.requests / s.load.perSecond, 0);
  const wallMs = slices.reduce((sum, s) => sum + s.wallMs, 0);
  const weighted = (core: keyof Cores) => slices.reduce((sum, s) => sum + s.cores[core] * s.wallMs, 0) / wallMs;
  return {
    requests,
    perSecond: requests / seconds,
    p50Ms: median(slices.map((s) => s.load.p50Ms)),
    p99Ms: Math.max(...slices.map((s) => s.load.p99Ms)),
    wrong: slices.reduce((sum, s) => sum + s.load.wrong, 0),
    firstWrong: slices.find((s) => s.load.firstWrong)?.load.firstWrong ?? '',
    socketErrors: slices.reduce((sum, s) => sum + s.load.socketErrors, 0),
    cores: { main: weighted('main'), queryProcesses: weighted('queryProcesses') },
  };
}

/**
 * Reads a file through, so that all of it is in the page cache. This machine's host takes back
 * memory no process has touched for about a minute, the page cache included (DAMON's `pageout`):
 * a data file read at random by small queries then comes from the disk a page at a time, for up to
 * a third less throughput (1,887–2,866 small queries a second against 3,099–4,644 read through),
 * where the ceiling's answer is in memory.
 */
function readThrough(file: string): void {
  const fd = openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(1 << 20);
  try {
    while (readSync(fd, buffer) > 0);
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs each load for a slice in turn, `times` rounds over; answers and problems seen, in the order
 * given. A load's `files` (the data it serves) are read through before each of its slices. The
 * first round's warm-up is `firstWarmup` seconds: a load its server has run before needs no more
 * than any slice's.
 */
export async function alternated(
  loads: { server: ServerProcess; spec: LoadSpec; files?: string[] }[],
  workDir: string,
  problems: string[],
  times = rounds,
  firstWarmup = firstWarmupSeconds,
): Promise<MeasuredLoad[]> {
  const slices: Slice[][] = loads.map(() => []);
  for (let round = 0; round < times; round++) {
    // Each round starts one load further on, so that no load always follows the same one.
    for (let k = 0; k < loads.length; k++) {
      const i = (k + round) % loads.length;
      const { server, spec, files = [] } = loads[i]!;
      for (const file of files) readThrough(file);
      await runLoad({ ...spec, seconds: round === 0 ? firstWarmup : warmupSeconds }, workDir);
      const cpu0 = cpuSnapshot(server.pid);
      const load = await runLoad({ ...spec, seconds: sliceSeconds }, workDir);
      const cpu1 = cpuSnapshot(server.pid);
      slices[i]!.push({ load, cores: cpuBetween(cpu0, cpu1), wallMs: cpu1.at - cpu0.at });
    }
  }
  return loads.map(({ server }, i) => {
    const load = combined(slices[i]!);
    if (load.wrong || load.socketErrors)
      problems.push(`load on ${server.base}: ${load.wrong} wrong answers (first: ${load.firstWrong}), ${load.socketErrors} socket errors`);
    return load;
  });
}
