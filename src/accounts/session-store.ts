import { createHash } from 'node:crypto';
import type { SessionStore } from '../store/types.js';

/** What a saved session holds besides its cookie: the account signed in. */
export interface SessionData {
  accountId?: number;
  accountName?: string;
  cookie: { expires?: Date | string | null };
}

type Callback<T = void> = (err?: Error | null, result?: T) => void;

/** How often sessions past their end are deleted; until then they are already refused when read. */
export const sessionSweepMs = 10 * 60 * 1000;

/** A session id is a bearer secret like a key: only its SHA-256 is stored. */
export function sessionIdHash(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex');
}

/**
 * @fastify/session's store interface over Siphon's metadata store, so sessions live in whichever
 * engine the store is. Only signed-in sessions are saved (a session without an account has nothing
 * worth keeping), each ending when its cookie does; one past its end is not found.
 */
export class StoreSessions {
  constructor(private readonly store: SessionStore) {}

  set(sessionId: string, session: SessionData, callback: Callback): void {
    const expires = session.cookie.expires;
    if (session.accountId === undefined || !expires) {
      callback();
      return;
    }
    this.store
      .saveSession(sessionIdHash(sessionId), { accountId: session.accountId, expiresAt: new Date(expires).toISOString() })
      .then(() => callback(), callback);
  }

  get(sessionId: string, callback: Callback<SessionData | null>): void {
    this.store
      .findSession(sessionIdHash(sessionId), new Date().toISOString())
      .then(
        (found) =>
          callback(
            null,
            found ? { accountId: found.account.id, accountName: found.account.name, cookie: { expires: found.expiresAt } } : null,
          ),
        callback,
      );
  }

  destroy(sessionId: string, callback: Callback): void {
    this.store.removeSession(sessionIdHash(sessionId)).then(() => callback(), callback);
  }
}
