/** Medians and percentiles, and what a server process and its query processes use, read from /proc (Linux). */
import { readFileSync } from 'node:fs';
import { childPids, rssOf } from '../test/helpers/processes.js';

export { childPids };

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
}

/** utime + stime of a process (all its threads), in ms; 0 if it is gone. */
function cpuMsOf(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

export interface CpuSnapshot {
  at: number;
  mainMs: number;
  children: Map<number, number>;
}

export function cpuSnapshot(pid: number): CpuSnapshot {
  return { at: performance.now(), mainMs: cpuMsOf(pid), children: new Map(childPids(pid).map((p) => [p, cpuMsOf(p)])) };
}

/** CPU used between two snapshots, in cores (CPU seconds per second): the server process, and its query processes together. */
export interface Cores {
  main: number;
  queryProcesses: number;
}

export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): Cores {
  const wall = b.at - a.at;
  let children = 0;
  // A process started in between counts from 0; one that died in between is not counted.
  for (const [pid, ms] of b.children) children += ms - (a.children.get(pid) ?? 0);
  return { main: (b.mainMs - a.mainMs) / wall, queryProcesses: children / wall };
}

/** The machine's CPU time so far, in clock ticks: all of it, and the idle part (idle and waiting for I/O). */
function machineTicks(): { total: number; idle: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), idle: fields[3]! + fields[4]! };
}

/**
 * The share of the machine's cores that was busy during the next `ms`: what other programs use
 * before a measurement starts. (On a virtual machine the load average can say little of it: this
 * one's stays near 3 while its cores are idle.)
 */
export async function machineBusy(ms: number): Promise<number> {
  const a = machineTicks();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const b = machineTicks();
  const total = b.total - a.total;
  return total > 0 ? 1 - (b.idle - a.idle) / total : 0;
}

/** Peak RSS of a server process (and of its query processes together) while sampled every `everyMs`. */
export class MemorySampler {
  private readonly timer: NodeJS.Timeout;
  readonly before: number;
  peak: number;
  childrenPeak = 0;

  constructor(
    private readonly pid: number,
    everyMs = 50,
  ) {
    this.before = rssOf(pid);
    this.peak = this.before;
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    this.peak = Math.max(this.peak, rssOf(this.pid));
    this.childrenPeak = Math.max(
      this.childrenPeak,
      childPids(this.pid).reduce((sum, p) => sum + rssOf(p), 0),
    );
  }

  stop(): { beforeMb: number; peakMb: number; growthMb: number; childrenPeakMb: number } {
    this.sample();
    clearInterval(this.timer);
    return {
      beforeMb: this.before / 1e6,
      peakMb: this.peak / 1e6,
      growthMb: (this.peak - this.before) / 1e6,
      childrenPeakMb: this.childrenPeak / 1e6,
    };
  }
}
