/**
 * A bearer token as every process of a fleet can read it. Times are wall-clock epoch milliseconds:
 * a monotonic clock means nothing outside the process that read it.
 */
export interface SharedToken {
  /** The bearer token itself. */
  accessToken: string;
  /** After this the token is no longer sent. */
  expiresAt: number;
  /** From this on a new token is minted (max(60 s, 10 % of `expires_in`) before expiry). */
  refreshAt: number;
}

/**
 * Where the processes of a fleet share their bearer token, so the fleet makes one token request per
 * credential per expiry instead of one per process (the token endpoint has its own rate limit:
 * API document, Authentication 1). `key` names the credential (base URL, client id and scopes,
 * hashed); the client secret is never part of it.
 */
export interface TokenCache {
  /** The stored token for `key`, if any. */
  get(key: string): Promise<SharedToken | undefined>;
  /** Stores `token` for `key` for `ttlMs` (until it expires, on the minting process's clock). */
  set(key: string, token: SharedToken, ttlMs: number): Promise<void>;
  /**
   * Claims the right to mint for `key` for at most `ttlMs`, so one process mints while the others
   * wait for its token. Undefined when another process holds the claim.
   */
  lock(key: string, ttlMs: number): Promise<TokenCacheLock | undefined>;
}

/** The right to mint, held by one process at a time. */
export interface TokenCacheLock {
  /** Gives the claim back (only if it is still this process's). */
  release(): Promise<void>;
}

/**
 * The cache key of a credential: a SHA-256 of what identifies it (never the secret), so keys in a
 * shared Redis reveal nothing and two clients with different scopes never share a token.
 */
export async function tokenCacheKey(
  baseUrl: string,
  clientId: string,
  scopes: readonly string[],
): Promise<string> {
  const identity = JSON.stringify([baseUrl, clientId, [...scopes].sort()]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(identity));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
