import { readdirSync, readFileSync } from 'node:fs';

/** A process's state letter (`R`, `S`, `Z` for a zombie…) and parent, from /proc; undefined once it is gone. */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    // The command name (2nd field, in parentheses) may hold spaces: fields are counted after it.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: state!, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Whether the process is still running (an exited process nobody has reaped yet, a zombie, is not). */
export function isRunning(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** The running import processes (src/scrapers/import-child.ts) whose parent is `parent`. */
export function importProcesses(parent = process.pid): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      if (procStat(pid)?.ppid !== parent || !isRunning(pid)) return false;
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('import-child.js');
      } catch {
        return false;
      }
    });
}
