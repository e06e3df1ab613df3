import type { Readable, Writable } from 'node:stream';

/**
 * What a command reads and writes, besides its store and files: the process's own streams,
 * environment and working folder when run as `bin/siphon`, others when the same commands run
 * inside a program (the tests run most commands so, without a Node start-up each).
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Stdout as a stream, for what is piped through as it comes (a query's rows), at the pace it is read. */
  output: Writable & { isTTY?: boolean };
  /** Whether stderr is a terminal: a download draws its progress line only there. */
  stderrIsTTY: boolean;
  /** Read by `user passwd` only; a terminal (`isTTY`) is asked with echo off. */
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** What a relative data folder is relative to. */
  cwd: string;
}

/** The process's own. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    output: process.stdout,
    stderrIsTTY: process.stderr.isTTY === true,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}
