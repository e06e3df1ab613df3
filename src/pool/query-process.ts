import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { QueryFailure } from '../errors.js';
import { spawnLimited, type LimitedProcess } from '../process/spawn-limited.js';
import { endsJob, FrameParser, FrameType, type Frame, type QueryJob, type ServerMessage } from './protocol.js';
import { relayBuffers } from './relay-buffers.js';
import { TempDiskGuard } from './temp-disk.js';

const childPath = fileURLToPath(new URL('./child.js', import.meta.url));
/**
 * V8's young generation (each of its two halves), where an export's rows and their text are made
 * and die: at twice Node's 16 MB, fewer of them are still alive, and copied, when it is collected,
 * for a tenth less CPU per exported row (measured on a json export) and up to 32 MB more memory.
 */
const youngGenerationMb = 32;

/** CPU priority of a process running a long query: short queries and the server get the cores first. */
const longQueryNice = 10;

export interface ProcessLimits {
  memoryMb: number;
  /** A query's temporary files (SQLite's sorts, temporary tables) together, at most; also the largest one. */
  tempMb: number;
  /** Where SQLite puts its temporary files. */
  tempDir: string;
  /** Free space of the disk of `tempDir` that no query's temporary files may take; 0: none. */
  diskReserveBytes: number;
}

/**
 * One query process: started under its limits, it runs one job at a time, in the order sent, and
 * answers in frames on a Unix socket of its own. Only killing it stops a long SQLite step, so that
 * is how a query is stopped.
 *
 * A socket the server connects to, not the process's stdout: Node reads a connection it opened into
 * buffers of the server's choosing, and the server's are used again once sent on (relay-buffers.ts),
 * where every read of a pipe made for a child is new memory. The process listens in a new folder of
 * the system's temporary folder (a socket's path must be short, which a data folder's may not be),
 * which only this user may enter, and takes one connection: the server's, made once it says it is
 * ready. The folder is removed once connected, or once the process is gone.
 */
export class QueryProcess {
  readonly startedAt = Date.now();
  /** Resolves when the process can take a job; rejects if it died first, with what it wrote to stderr. */
  readonly ready: Promise<void>;
  /** Called with each frame of the running job's answer. */
  onFrame: (frame: Frame) => void = () => {};
  /** Killed or exited: never to be given another job. */
  gone = false;
  /** Killed by us, on purpose (not a process failing to start or dying of its own). */
  stopped = false;
  /** Why it was killed, when it was for what its query did (its temporary files): how that query failed. */
  stoppedFor: QueryFailure | undefined;
  private readonly child: LimitedProcess;
  /** The process's answers, read into the server's buffers; connected once the process is ready. */
  private output: Socket | undefined;
  private readonly parser = new FrameParser();
  private readonly exited: Promise<void>;
  /** Its temporary files: each one is capped by `ulimit -f`, all of them together by this. */
  private readonly tempDisk: TempDiskGuard | undefined;
  private niced = false;
  private jobsSent = 0;

  constructor(limits: ProcessLimits, onExit: (p: QueryProcess) => void) {
    const socketDir = mkdtempSync(path.join(os.tmpdir(), 'siphon-'));
    const socketPath = path.join(socketDir, 'output.sock');
    const removeSocketDir = () => rmSync(socketDir, { recursive: true, force: true });
    this.child = spawnLimited(childPath, {
      memoryMb: limits.memoryMb,
      fileMb: limits.tempMb,
      env: { SQLITE_TMPDIR: limits.tempDir, SIPHON_OUTPUT_SOCKET: socketPath },
      nodeFlags: [`--max-semi-space-size=${youngGenerationMb}`],
      noStdout: true,
    });
    const { proc } = this.child;
    const tempDisk = { dir: limits.tempDir, capMb: limits.tempMb, reserveBytes: limits.diskReserveBytes };
    this.tempDisk = proc.pid === undefined ? undefined : new TempDiskGuard(proc.pid, tempDisk, (failure) => this.stopFor(failure));
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      let connected = false;
      proc.on('message', (m: { type?: string }) => {
        if (m.type !== 'ready' || this.output) return;
        const onread = {
          buffer: () => relayBuffers.forRead(),
          callback: (length: number, buffer: Uint8Array) => this.read(buffer as Buffer, length),
        };
        this.output = connect({ path: socketPath, onread }, () => {
          connected = true;
          removeSocketDir();
          resolve();
        });
        // Once connected, a process that dies says why by its exit, not by its socket's error.
        this.output.on('error', (err) => {
          if (connected) return;
          reject(new Error(`its output could not be read: ${err.message}`));
          void this.kill();
        });
      });
      void this.exited.then(() => reject(new Error(this.child.stderrTail().trim() || 'exited before it was ready')));
    });
    this.ready.catch(() => {});
    proc.on('error', (err) => process.stderr.write(`query process: ${err.message}\n`));
    void this.exited.then(() => {
      this.gone = true;
      this.tempDisk?.close();
      this.output?.destroy();
      removeSocketDir();
      onExit(this);
    });
  }

  /**
   * Hands on the frames of what was read, each data frame's payload kept from the read buffer (a
   * copy, for a small one): whoever sends it on gives it back. Other frames are read at once.
   */
  private read(buffer: Buffer, length: number): boolean {
    for (const frame of this.parser.push(buffer.subarray(0, length))) {
      if (endsJob(frame.type)) this.tempDisk?.jobEnded();
      this.onFrame(frame.type === FrameType.data ? { type: frame.type, payload: relayBuffers.keep(frame.payload) } : frame);
    }
    relayBuffers.release(buffer);
    // Reading stops only when asked (`pauseOutput`).
    return true;
  }

  get pid(): number | undefined {
    return this.child.proc.pid;
  }

  /** Sends a job; it runs once those sent before it have ended. Returns its number, for `cancel`. */
  run(job: QueryJob): number {
    this.jobsSent += 1;
    this.tempDisk?.jobSent();
    this.send({ type: 'run', id: this.jobsSent, job });
    return this.jobsSent;
  }

  /** Takes back a job not started yet: it is answered by a skipped frame, unless it had started. */
  cancel(id: number): void {
    this.send({ type: 'cancel', id });
  }

  /** Stops reading its output: the process blocks on its next write. */
  pauseOutput(): void {
    this.output?.pause();
  }

  resumeOutput(): void {
    this.output?.resume();
  }

  /** Freezes the process where it is (SIGSTOP): it holds its memory but takes no CPU. */
  freeze(): void {
    this.signal('SIGSTOP');
  }

  thaw(): void {
    this.signal('SIGCONT');
  }

  /** Runs it at a lower CPU priority, for a long query. */
  lowerPriority(): void {
    this.niced = this.setNice(longQueryNice);
  }

  /**
   * Back to normal priority for its next job. False when that is not allowed (only root may raise a
   * priority): the process should then be replaced.
   */
  restorePriority(): boolean {
    if (!this.niced) return true;
    this.niced = !this.setNice(0);
    return !this.niced;
  }

  /** Stops the process at once, whatever it is doing. */
  kill(): Promise<void> {
    this.gone = true;
    this.stopped = true;
    this.signal('SIGKILL');
    return this.exited;
  }

  /** Kills it for what its query did: the query fails with `failure` (`stoppedFor`). */
  private stopFor(failure: QueryFailure): void {
    this.stoppedFor = failure;
    void this.kill();
  }

  private send(message: ServerMessage): void {
    // A process dying at this moment is handled by its exit; its channel may be closed already.
    if (!this.gone) this.child.proc.send(message);
  }

  private setNice(nice: number): boolean {
    try {
      if (this.pid !== undefined && !this.gone) os.setPriority(this.pid, nice);
      return true;
    } catch {
      return false;
    }
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      this.child.proc.kill(signal);
    } catch {
      // Already gone.
    }
  }
}
