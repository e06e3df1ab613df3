import type { FastifyReply, FastifyRequest } from 'fastify';
import { once } from 'node:events';

/** A refused request's body is read to its end and dropped when it says it is this long or less. */
const droppedBodyBytes = 64 * 1024;
/** And when its rest comes within this time: a client that stops sending it is not waited for longer. */
const dropWaitMs = 2000;

/**
 * Before a refusal is answered: what becomes of the request's body not yet read. A small one is read
 * to its end and dropped (taken from whatever was reading it, a form's parser say), and the
 * connection stays open: a client still sending it (Node 24's fetch sends a form's body after its
 * head) then reads the answer, where a connection closed under it gave it a broken pipe and no answer.
 * A large one, or one of unknown length, is not read just to be thrown away: the connection is closed.
 */
export async function settleUnreadBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const raw = request.raw;
  if (raw.complete) return;
  const declared = Number(raw.headers['content-length']);
  if (Number.isInteger(declared) && declared <= droppedBodyBytes && !raw.destroyed) {
    raw.unpipe();
    raw.resume();
    const ended = await once(raw, 'end', { signal: AbortSignal.timeout(dropWaitMs) }).then(
      () => true,
      () => false,
    );
    if (ended) return;
  }
  void reply.header('connection', 'close');
}
