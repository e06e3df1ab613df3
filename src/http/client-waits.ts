import type { FastifyReply } from 'fastify';
import { errors } from '../errors.js';

/**
 * Aborts when the client goes away before its answer: work done only for that answer (an import,
 * table previews) is not worth finishing. Call the returned `done` once the answer is sent.
 */
export function whileClientWaits(reply: FastifyReply): { signal: AbortSignal; done: () => void } {
  const left = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableEnded) left.abort(errors.clientClosed());
  };
  reply.raw.once('close', onClose);
  return { signal: left.signal, done: () => reply.raw.off('close', onClose) };
}
