import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, rmSync, utimesSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DownloadRecord, SpoolProgress } from '../store/types.js';

/** A spool file is left for a new one once this big and fully recorded, so that none grows for ever. */
const defaultRotateBytes = 64 * 2 ** 20;
/** A running node touches its spool files this often, so that other machines can tell it is alive (spool-replay.ts). */
export const heartbeatMs = 30_000;

/**
 * A spool file's name tells who writes it: `<id>~<host>~<pid>.ndjson`. The id names it in the store
 * (its progress) and stays when another node takes the file over to replay it.
 */
export function spoolFileName(id: string, host = thisHost(), pid = process.pid): string {
  return `${id}~${host}~${pid}.ndjson`;
}

/** This machine's name as spool file names have it. */
export function thisHost(): string {
  return os.hostname().replace(/[~/]/g, '_') || 'host';
}

export function parseSpoolFileName(name: string): { id: string; host: string; pid: number } | undefined {
  const m = /^([0-9a-f]+)~([^~/]+)~(\d+)\.ndjson$/.exec(name);
  return m ? { id: m[1]!, host: m[2]!, pid: Number(m[3]) } : undefined;
}

/** The folder of the spools, in the data folder every node shares. */
export function spoolDir(dataDir: string): string {
  return path.join(dataDir, 'downloads-spool');
}

class SpoolFile {
  readonly id = randomBytes(8).toString('hex');
  readonly file: string;
  private readonly fd: number;
  /** Lines queued, written or not: the position of the last. */
  appended = 0;
  bytes = 0;
  /** Lines queued this turn of the event loop, written at its end. */
  private waiting = '';

  constructor(dir: string) {
    this.file = path.join(dir, spoolFileName(this.id));
    this.fd = openSync(this.file, 'a');
  }

  append(line: string): void {
    this.waiting += line;
    this.appended += 1;
  }

  /** Writes the lines waiting; throws if they cannot be (they are then dropped from here). */
  write(): void {
    const text = this.waiting;
    this.waiting = '';
    if (text !== '') this.bytes += writeSync(this.fd, text);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Where one queued download is in the spool: the file and its position there, from 1. */
export interface SpoolEntry {
  file: SpoolFile;
  position: number;
  /** Resolves once its line is in the file, or the spool was given up trying. */
  written: Promise<void>;
}

export interface SpoolLog {
  error(details: object, message: string): void;
}

/**
 * This node's spool of downloads: each is appended to a file in the data folder as it is queued,
 * before it waits to be written to the store. A write to a file is in the system's cache the moment
 * the call returns, so a node killed outright (SIGKILL, out of memory) loses none of the downloads it
 * answered (its answer waits for `written`): the next node to start on this machine, or any node some
 * minutes later, replays what the store has not recorded (spool-replay.ts). A machine that loses
 * power may lose the last few seconds.
 *
 * The lines queued in one turn of the event loop are written together at its end, in one write: a
 * write per download cost a 304 ~20 µs of its ~220 of CPU, and one turn under the bench's load
 * queues ~20. Their answers wait for it, that turn's end.
 *
 * The store keeps, with each batch of downloads, how far the spool is recorded (SpoolProgress), so a
 * replay records each download once. A spool that cannot be written (a full disk) is given up with
 * one log line: downloads are then queued in memory only, as they were before spools.
 */
export class DownloadSpool {
  private current: SpoolFile | undefined;
  /** Files left for a newer one, until all they hold is recorded. */
  private readonly retired = new Set<SpoolFile>();
  private readonly heartbeat: NodeJS.Timeout;
  /** This turn's write, once a line waits for it. */
  private turn: Promise<void> | undefined;

  /** `rotateBytes`: the size past which a file is left for a new one (tests make it small). */
  constructor(
    private readonly dir: string,
    private readonly log: SpoolLog,
    private readonly rotateBytes = defaultRotateBytes,
  ) {
    mkdirSync(dir, { recursive: true });
    this.current = new SpoolFile(dir);
    this.heartbeat = setInterval(() => this.touch(), heartbeatMs).unref();
  }

  /** Queues the download for this turn's write; undefined when the spool is given up. */
  append(download: DownloadRecord): SpoolEntry | undefined {
    const file = this.current;
    if (!file) return undefined;
    file.append(`${JSON.stringify(download)}\n`);
    this.turn ??= new Promise((resolve) =>
      setImmediate(() => {
        this.turn = undefined;
        this.writeWaiting();
        resolve();
      }),
    );
    return { file, position: file.appended, written: this.turn };
  }

  /** Writes the lines waiting for the current file; a file that cannot be written is given up. */
  private writeWaiting(): void {
    const file = this.current;
    if (!file) return;
    try {
      file.write();
    } catch (err) {
      this.log.error({ err, spool: file.file }, 'the downloads spool cannot be written; downloads are queued in memory only');
      this.current = undefined;
      this.retired.add(file);
    }
  }

  /** The progress to record with a batch of downloads whose last one is `last`. */
  progress(last: SpoolEntry): SpoolProgress {
    return { spool: last.file.id, recorded: last.position };
  }

  /**
   * Called once `last` and all before it are recorded: a file that is big enough is left for a new
   * one, and a file left whose every download is recorded is removed. Returns the ids of the files
   * removed, for the store to forget.
   */
  recorded(last: SpoolEntry): string[] {
    const file = last.file;
    if (file === this.current) this.writeWaiting(); // its lines waiting go to it, not to a new one
    if (file === this.current && file.bytes >= this.rotateBytes) {
      this.retired.add(file);
      try {
        this.current = new SpoolFile(this.dir);
      } catch (err) {
        this.log.error({ err }, 'no new downloads spool can be made; downloads are queued in memory only');
        this.current = undefined;
      }
    }
    if (!this.retired.has(file) || last.position < file.appended) return [];
    this.retired.delete(file);
    file.close();
    rmSync(file.file, { force: true });
    return [file.id];
  }

  /** At a clean stop with every download recorded: the spool's files go. Returns their ids, for the store to forget. */
  removeAll(): string[] {
    clearInterval(this.heartbeat);
    const files = [...this.retired, ...(this.current ? [this.current] : [])];
    this.current = undefined;
    this.retired.clear();
    for (const file of files) {
      file.close();
      rmSync(file.file, { force: true });
    }
    return files.map((f) => f.id);
  }

  /** At a stop with downloads left unrecorded: the files stay, for a replay. */
  leave(): void {
    clearInterval(this.heartbeat);
    this.writeWaiting();
    for (const file of [...this.retired, ...(this.current ? [this.current] : [])]) file.close();
    this.current = undefined;
    this.retired.clear();
  }

  /** Whether the file of this name is one this spool writes. */
  owns(name: string): boolean {
    return [...this.retired, ...(this.current ? [this.current] : [])].some((f) => path.basename(f.file) === name);
  }

  private touch(): void {
    const now = new Date();
    for (const file of [...this.retired, ...(this.current ? [this.current] : [])]) {
      try {
        utimesSync(file.file, now, now);
      } catch {
        // Gone or unreachable: the appends say so.
      }
    }
  }
}
