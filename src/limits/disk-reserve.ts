import { statfsSync } from 'node:fs';

/** Bytes free on the disk holding `dir`, for a process that is not root's (`df`'s "Avail"). */
export function freeBytes(dir: string): number {
  const { bavail, bsize } = statfsSync(dir);
  return bavail * bsize;
}

/**
 * Whether `bytes` more written in `dir` would leave less than `reserveBytes` free on its disk: the
 * room kept for what must go on being written there (`--disk-reserve-mb`, docs/operations.md).
 */
export function takesReserve(dir: string, reserveBytes: number, bytes = 0): boolean {
  return reserveBytes > 0 && freeBytes(dir) - bytes < reserveBytes;
}
