import pg from 'pg';

/** After the listening connection is lost, it is made again after this, doubling up to the most. */
const firstRetryMs = 100;
const maxRetryMs = 5000;

/**
 * Tells when another node (or a command) may have changed what a cached look-up returns: a
 * connection of its own LISTENs to the notifications the schema's triggers send at each commit
 * (src/store/pg/schema.ts), so every node hears of a revoked key or a publish within milliseconds.
 *
 * Caching is only safe while that connection listens: `listening` is false until it does and from
 * the moment it is lost, and each of those moments counts as a change too. `generation` increases at
 * every change, so a look-up that read the database while a change came does not cache what it read.
 */
export class ChangeFeed {
  generation = 0;
  listening = false;
  private client: pg.Client | undefined;
  private retryMs = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly onChange: () => void,
  ) {}

  /** Starts listening; resolves once it does, or at its first failure (caching then waits for a reconnection). */
  async start(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString });
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.changed(false);
      client.end().catch(() => {});
      if (this.closed) return;
      this.retryMs = Math.min(Math.max(2 * this.retryMs, firstRetryMs), maxRetryMs);
      this.retry = setTimeout(() => void this.start(), this.retryMs);
      this.retry.unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => this.changed(true));
    try {
      await client.connect();
      await client.query('listen siphon_changes');
      // Closed, or lost and replaced, while it connected: this connection is nobody's.
      if (this.client !== client) {
        await client.end().catch(() => {});
        return;
      }
      this.retryMs = 0;
      this.changed(true);
    } catch {
      lost();
    }
  }

  private changed(listening: boolean): void {
    this.listening = listening;
    this.generation += 1;
    this.onChange();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => {});
  }
}
