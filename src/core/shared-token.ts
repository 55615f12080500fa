import type { SharedToken, TokenCache } from "./token-cache";

export interface SharedTokenRequest {
  cache: TokenCache;
  key: string;
  mint: () => Promise<SharedToken>;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  onCacheError: (error: unknown) => void;
  lockTtlMs?: number;
  /** For another's token, before minting its own. @default 5000 */
  waitMs?: number;
  pollMs?: number;
}

/** One process mints under a lock; a failing cache saves no token requests, but never stops a call. */
export async function obtainSharedToken(request: SharedTokenRequest): Promise<SharedToken> {
  const { cache, key, mint, now, onCacheError } = request;
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

  // Another process is minting; a token due for renewal but not expired is still good.
  if (stored && now() < stored.expiresAt) return stored;
  const deadline = now() + (request.waitMs ?? 5_000);
  while (now() < deadline) {
    await request.sleep(request.pollMs ?? 50, request.signal);
    const token = await read();
    if (token && fresh(token)) return token;
  }
  return mint();
}
