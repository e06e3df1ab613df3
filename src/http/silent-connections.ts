import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The connections that have not sent a byte yet, so a stopping server can close them. Node's
 * closeIdleConnections() leaves them open: it counts a new connection as a request arriving, so
 * server.close() waits for the headers timeout (a minute by default) on a browser's or fetch's
 * spare connection that will never send anything. Nothing was asked on them, so nothing is lost.
 */
export class SilentConnections {
  private readonly open = new Set<Socket>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => this.open.delete(socket));
    });
  }

  /** Closes every connection that has sent nothing so far. */
  close(): void {
    for (const socket of this.open) {
      if (socket.bytesRead === 0) socket.destroy();
    }
  }
}
