import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * Where Siphon is reached, for absolute links (feeds, examples on pages): the configured public URL,
 * else `protocol://host[:port]` as the client addressed it. Undefined when the Host header is not a
 * plain host[:port], so it cannot be built into a link.
 */
export function publicOrigin(request: FastifyRequest, config: Config): string | undefined {
  if (config.publicUrl) return config.publicUrl;
  let url: URL;
  try {
    url = new URL(`${request.protocol}://${request.host}/`);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
  return url.origin;
}
