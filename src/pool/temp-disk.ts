import { readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { QueryFailure } from '../errors.js';
import { takesReserve } from '../limits/disk-reserve.js';

export interface TempDiskLimits {
  /** Where SQLite writes the process's temporary files (SQLITE_TMPDIR), on the data disk. */
  dir: string;
  /** A query's temporary files together, at most. */
  capMb: number;
  /** Free space of that disk that no query's temporary files may take; 0: none. */
  reserveBytes: number;
}

/**
 * A job is first looked at once it has run this long: most queries end sooner, so they cost
 * nothing. A sort was measured writing its temporary files at up to 250 MB/s (2 MB every 10 ms,
 * on a tmpfs): what a query may write before its first look, and past its cap, is ~10 MB.
 */
const firstLookMs = 50;
/**
 * A process holding temporary files is looked at again this soon (~4 MB written at that speed). A
 * look costs the server ~250 µs (a `readlink` per open file of the process, ~20), ~1 % of a core.
 */
const holdingLookMs = 20;

/**
 * Bytes of the files in `dir` that process `pid` holds open: SQLite unlinks its temporary files as it
 * opens them, so they are found through the process's open files (/proc/<pid>/fd), which still name
 * them. 0 where /proc cannot be read (not Linux, or the process is gone): there, only the per-file cap holds.
 */
export function openTempBytes(pid: number, dir: string): number {
  const fds = `/proc/${pid}/fd`;
  const inDir = dir + path.sep;
  let names: string[];
  try {
    names = readdirSync(fds);
  } catch {
    return 0;
  }
  let bytes = 0;
  for (const fd of names) {
    try {
      // The room a file takes on the disk, which is what fills it.
      if (readlinkSync(`${fds}/${fd}`).startsWith(inDir)) bytes += statSync(`${fds}/${fd}`).blocks * 512;
    } catch {
      // Closed meanwhile.
    }
  }
  return bytes;
}

/**
 * Every query process's temporary files, looked at by one timer of the server's, running only
 * while a process has a job: the process itself cannot look while one long SQLite step holds its
 * thread. Past its cap, or into the disk's reserve, a process's query is stopped.
 */
class TempDiskWatch {
  private readonly guards = new Set<TempDiskGuard>();
  private timer: NodeJS.Timeout | undefined;

  add(guard: TempDiskGuard): void {
    this.guards.add(guard);
  }

  delete(guard: TempDiskGuard): void {
    this.guards.delete(guard);
  }

  /** A job started: looked at `firstLookMs` from now, by the timer already running if there is one. */
  wake(): void {
    this.timer ??= setTimeout(() => this.tick(), firstLookMs).unref();
  }

  private tick(): void {
    this.timer = undefined;
    const now = performance.now();
    let next = Infinity;
    for (const guard of this.guards) {
      if (guard.lookAt === undefined) continue;
      if (guard.lookAt <= now) guard.look(now);
      if (guard.lookAt !== undefined) next = Math.min(next, guard.lookAt);
    }
    if (next < Infinity) this.timer = setTimeout(() => this.tick(), Math.max(1, next - now)).unref();
  }
}

const watch = new TempDiskWatch();

/**
 * The temporary disk of one query process: its jobs' temporary files together stay under the cap
 * (`ulimit -f` caps each file), and out of the data disk's reserve. Told when a job is sent and
 * when one ends, it is looked at while it has one that has run `firstLookMs`.
 */
export class TempDiskGuard {
  /** When it is next looked at (performance.now()); undefined while it has no job. */
  lookAt: number | undefined;
  private readonly dir: string;
  private jobsSent = 0;
  private jobsEnded = 0;

  constructor(
    private readonly pid: number,
    private readonly limits: TempDiskLimits,
    /** Stops the process's query, which failed so. */
    private readonly stop: (failure: QueryFailure) => void,
  ) {
    // /proc names a file by its real path.
    this.dir = realpathSync(limits.dir);
    watch.add(this);
  }

  jobSent(): void {
    if (this.jobsSent++ === this.jobsEnded) this.started();
  }

  /** A job's last frame came (end, error or skipped): the next one sent, if any, starts. */
  jobEnded(): void {
    this.jobsEnded += 1;
    if (this.jobsEnded < this.jobsSent) this.started();
    else this.lookAt = undefined;
  }

  /** The process is gone. */
  close(): void {
    this.lookAt = undefined;
    watch.delete(this);
  }

  look(now: number): void {
    const bytes = openTempBytes(this.pid, this.dir);
    this.lookAt = now + (bytes > 0 ? holdingLookMs : firstLookMs);
    if (bytes === 0) return;
    const failure: QueryFailure | undefined =
      bytes > this.limits.capMb * 2 ** 20
        ? { kind: 'resources', tempDisk: { capMb: this.limits.capMb } }
        : takesReserve(this.dir, this.limits.reserveBytes)
          ? { kind: 'resources', tempDisk: 'reserve' }
          : undefined;
    if (!failure) return;
    this.lookAt = undefined;
    this.stop(failure);
  }

  private started(): void {
    this.lookAt = performance.now() + firstLookMs;
    watch.wake();
  }
}
