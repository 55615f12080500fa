/** A bearer token as every process of a fleet can read it: times in wall-clock epoch ms. */
export interface SharedToken {
  /** The bearer token itself. */
  accessToken: string;
  /** After this the token is no longer sent. */
  expiresAt: number;
  /** From this on a new token is minted. */
  refreshAt: number;
}

/** Where a fleet's processes share their bearer token; `key` is a hash that holds no secret. */
export interface TokenCache {
  /** The stored token for `key`, if any. */
  get(key: string): Promise<SharedToken | undefined>;
  /** Stores `token` for `key` for `ttlMs`. */
  set(key: string, token: SharedToken, ttlMs: number): Promise<void>;
  /** Claims the right to mint for `key` for `ttlMs`; undefined when another process holds it. */
  lock(key: string, ttlMs: number): Promise<TokenCacheLock | undefined>;
}

/** The right to mint, held by one process at a time. */
export interface TokenCacheLock {
  /** Gives the claim back (only if it is still this process's). */
  release(): Promise<void>;
}

/** Never the secret; different scopes never share a token. */
export async function tokenCacheKey(
  baseUrl: string,
  clientId: string,
  scopes: readonly string[],
): Promise<string> {
  const identity = JSON.stringify([baseUrl, clientId, [...scopes].sort()]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(identity));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
