import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { CliIo } from './io.js';

/** Stdin piped in is read to its end, but no further than this: a password is a line, not a file. */
const maxInputBytes = 64 * 1024;

/** The first line of what is piped to stdin, without its line ending. */
async function firstLinePiped(stdin: CliIo['stdin']): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.length > maxInputBytes || text.includes('\n')) break;
  }
  stdin.destroy();
  return text.split(/\r?\n/)[0]!;
}

/** Asks on the terminal with echo off: what is typed is not shown. */
function ask(io: CliIo, question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stderr(String(chunk));
      done();
    },
  });
  const rl = createInterface({ input: io.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      io.stderr('\n');
      resolve(answer);
    });
    muted = true;
  });
}

/**
 * A new password, never from an argument (which any user of the machine can read in `ps`): typed
 * twice at a prompt with echo off when stdin is a terminal, else the first line piped in. Undefined
 * when the two typed differ.
 */
export async function readNewPassword(io: CliIo): Promise<string | undefined> {
  if (!io.stdin.isTTY) return firstLinePiped(io.stdin);
  const first = await ask(io, 'New password: ');
  const second = await ask(io, 'Again: ');
  return first === second ? first : undefined;
}
