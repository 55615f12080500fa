import type { SharedToken, TokenCache } from "./token-cache";

/** What {@link obtainSharedToken} needs of the client. */
export interface SharedTokenRequest {
  cache: TokenCache;
  /** The credential's key ({@link tokenCacheKey}). */
  key: string;
  /** Asks the token endpoint itself. */
  mint: () => Promise<SharedToken>;
  /** Wall-clock ms and an abortable sleep: the client's (injectable) clock. */
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Told when the cache fails; the token then comes from this process alone. */
  onCacheError: (error: unknown) => void;
  /** How long one process may hold the right to mint. @default 10000 */
  lockTtlMs?: number;
  /** How long a process waits for another's token before minting its own. @default 5000 */
  waitMs?: number;
  /** How often a waiting process looks for that token. @default 50 */
  pollMs?: number;
}

/**
 * A token for the whole fleet: the stored one while it is fresh; otherwise one process mints under
 * a lock and stores it while the others wait for it (or keep sending the old one while it is still
 * valid). When the cache is unreachable, or the minting process is gone, this process mints on its
 * own: a shared cache saves token requests, it never stops a call.
 */
export async function obtainSharedToken(request: SharedTokenRequest): Promise<SharedToken> {
  const { cache, key, mint, now, onCacheError } = request;
  // Not a type guard: a stale token is still a token, and is used below while it is valid.
  const fresh = (token: SharedToken | undefined): boolean =>
    token !== undefined && now() < token.refreshAt;
  const read = () =>
    cache.get(key).catch((error: unknown) => {
      onCacheError(error);
      return undefined;
    });

  let stored: SharedToken | undefined;
  let lock: Awaited<ReturnType<TokenCache["lock"]>>;
  try {
    stored = await cache.get(key);
    if (stored && fresh(stored)) return stored;
    lock = await cache.lock(key, request.lockTtlMs ?? 10_000);
  } catch (error) {
    onCacheError(error);
    return mint();
  }

  if (lock) {
    try {
      // Another process may have stored a token between the read and the lock.
      const again = await read();
      if (again && fresh(again)) return again;
      const token = await mint();
      await cache.set(key, token, token.expiresAt - now()).catch(onCacheError);
      return token;
    } finally {
      await lock.release().catch(onCacheError);
    }
  }

  // Another process is minting. A token that is due for renewal but not expired is still good.
  if (stored && now() < stored.expiresAt) return stored;
  const deadline = now() + (request.waitMs ?? 5_000);
  while (now() < deadline) {
    await request.sleep(request.pollMs ?? 50, request.signal);
    const token = await read();
    if (token && fresh(token)) return token;
  }
  return mint();
}
