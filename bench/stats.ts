/** Medians, and memory sampling of this process and its child processes. */
import { readdirSync, readFileSync } from 'node:fs';

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Pids of this process's children (the query processes), from /proc (Linux only; [] elsewhere). */
export function childPids(): number[] {
  const pids = new Set<number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const text = readFileSync(`/proc/self/task/${tid}/children`, 'utf8').trim();
      for (const p of text.split(/\s+/)) if (p) pids.add(Number(p));
    }
  } catch {
    // not Linux, or no children file: child memory is then not reported
  }
  return [...pids];
}

/** Resident set size of a process in bytes, or 0 if it is gone. */
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface MemorySummary {
  samples: number;
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
  heapUsedPeak: number;
  /** The largest RSS seen of any one query process, and of all of them together. */
  childRssPeak: number;
  childrenRssPeak: number;
}

/** Samples RSS every `everyMs` on the main thread's event loop (so it also shows loop stalls). */
export class MemorySampler {
  private readonly timer: NodeJS.Timeout;
  private readonly s: MemorySummary;
  maxGapMs = 0;
  private last = performance.now();

  constructor(everyMs = 50) {
    const rss = process.memoryUsage.rss();
    this.s = { samples: 0, rssBefore: rss, rssPeak: rss, rssAfter: rss, heapUsedPeak: 0, childRssPeak: 0, childrenRssPeak: 0 };
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const now = performance.now();
    this.maxGapMs = Math.max(this.maxGapMs, now - this.last);
    this.last = now;
    const m = process.memoryUsage();
    this.s.samples += 1;
    this.s.rssPeak = Math.max(this.s.rssPeak, m.rss);
    this.s.heapUsedPeak = Math.max(this.s.heapUsedPeak, m.heapUsed);
    let total = 0;
    for (const pid of childPids()) {
      const r = rssOf(pid);
      total += r;
      this.s.childRssPeak = Math.max(this.s.childRssPeak, r);
    }
    this.s.childrenRssPeak = Math.max(this.s.childrenRssPeak, total);
  }

  stop(): MemorySummary & { maxSampleGapMs: number } {
    this.sample();
    clearInterval(this.timer);
    this.s.rssAfter = process.memoryUsage.rss();
    return { ...this.s, maxSampleGapMs: this.maxGapMs };
  }
}

/** utime + stime of one /proc stat file, in ms (0 if unreadable). */
function cpuMsOf(statFile: string): number {
  try {
    const text = readFileSync(statFile, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

export interface CpuSnapshot {
  at: number;
  /** The server's main thread (Fastify, the pool, the store). */
  mainMs: number;
  /** Every other thread of this process: the client worker, plus V8 and libuv helpers. */
  otherThreadsMs: number;
  /** Query processes, by pid (a process that dies in between is not counted). */
  children: Map<number, number>;
}

export function cpuSnapshot(): CpuSnapshot {
  let mainMs = 0;
  let otherThreadsMs = 0;
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const ms = cpuMsOf(`/proc/self/task/${tid}/stat`);
      if (Number(tid) === process.pid) mainMs = ms;
      else otherThreadsMs += ms;
    }
  } catch {
    // not Linux
  }
  return { at: performance.now(), mainMs, otherThreadsMs, children: new Map(childPids().map((p) => [p, cpuMsOf(`/proc/${p}/stat`)])) };
}

/** CPU used between two snapshots, in cores (CPU seconds per second of wall time). */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): { serverMainThread: number; otherThreads: number; queryProcesses: number } {
  const wall = b.at - a.at;
  let children = 0;
  for (const [pid, ms] of b.children) if (a.children.has(pid)) children += ms - a.children.get(pid)!;
  return { serverMainThread: (b.mainMs - a.mainMs) / wall, otherThreads: (b.otherThreadsMs - a.otherThreadsMs) / wall, queryProcesses: children / wall };
}
