import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A connection this new may have a request on its way (sent, not yet read): it is left to send it,
 * to be answered or refused like any other, rather than reset.
 */
const graceMs = 1000;

/**
 * The connections that have not sent a byte yet, so a stopping server can close them. Node's
 * closeIdleConnections() leaves them open: it counts a new connection as a request arriving, so
 * server.close() waits for the headers timeout (a minute by default) on a browser's or fetch's
 * spare connection that will never send anything. Nothing was asked on them, so nothing is lost.
 */
export class SilentConnections {
  private readonly openedAt = new Map<Socket, number>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.openedAt.set(socket, Date.now());
      socket.once('close', () => this.openedAt.delete(socket));
    });
  }

  /** Closes every connection that has sent nothing in its first second or since. */
  close(): void {
    const now = Date.now();
    for (const [socket, openedAt] of this.openedAt) {
      if (socket.bytesRead === 0 && now - openedAt >= graceMs) socket.destroy();
    }
  }
}
