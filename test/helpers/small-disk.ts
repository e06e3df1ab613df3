import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/config.js';
import { tempDir } from './fixture-db.js';
import { startServer, type TestServer } from './server.js';
import { versionDb } from './upload.js';

/**
 * A small tmpfs, so that a test really fills the disk. Mounting needs root, as in CI; elsewhere
 * `skip` says why the test is skipped, unless SIPHON_REQUIRE_ROOT=1 makes that a failure instead.
 */
export class SmallDisk {
  readonly path = tempDir('siphon-full-disk-');
  readonly skip: string | false;
  private readonly mountError: string | undefined;
  private readonly filler = path.join(this.path, 'filler');

  constructor(size: string) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', this.path], { stdio: 'pipe' });
    } catch (err) {
      this.mountError = String((err as { stderr?: Buffer }).stderr ?? err).trim();
    }
    this.skip =
      this.mountError === undefined || process.env.SIPHON_REQUIRE_ROOT === '1'
        ? false
        : `cannot mount a small tmpfs here (needs root): ${this.mountError}; set SIPHON_REQUIRE_ROOT=1 to make this a failure`;
  }

  /** Fails when the disk could not be mounted (reached only when SIPHON_REQUIRE_ROOT=1). */
  assertMounted(): void {
    if (this.mountError !== undefined) throw new Error(`SIPHON_REQUIRE_ROOT=1 but a tmpfs cannot be mounted: ${this.mountError}`);
  }

  /** Fills the disk until about `kb` KB are left. */
  leaveFree(kb: number): void {
    this.free();
    const { bavail, bsize } = statfsSync(this.path);
    writeFileSync(this.filler, Buffer.alloc(Math.max(0, bavail * bsize - kb * 1024)));
  }

  /** Gives back the room `leaveFree` took. */
  free(): void {
    rmSync(this.filler, { force: true });
  }

  /**
   * A server whose data folder is on this disk, with the account alice and her scraper alice/plants
   * (version 1). No free space is kept on the disk (`--disk-reserve-mb`) unless `overrides` says so:
   * such a small disk is all reserve by default.
   */
  async startServer(overrides: Partial<Config> = {}): Promise<{ server: TestServer; key: string }> {
    this.assertMounted();
    const dataDir = path.join(this.path, 'data');
    mkdirSync(dataDir);
    const server = await startServer({ diskReserveBytes: 0, ...overrides, dataDir });
    const { key } = await server.catalog.addUser('alice');
    await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
    return { server, key };
  }

  unmount(): void {
    if (this.mountError === undefined) execFileSync('umount', [this.path]);
  }
}
