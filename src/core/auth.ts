import type { Clock } from "../internal/clock";
import { AuthenticationError } from "./errors";
import type { Http, TokenSource } from "./http/request";
import type { WireAnswer } from "./http/wire";
import type { Log } from "./logger";
import type { ResolvedOptions } from "./options";
import { SecretSet } from "./redact";

export type { TokenSource } from "./http/request";

import { obtainSharedToken } from "./shared-token";
import { type SharedToken, tokenCacheKey } from "./token-cache";

export const tokenPath = "/oauth2/token";
const defaultTokenLifetimeSeconds = 3600;
// A longer `expires_in` (1e308 from a hostile server) reads as a day.
const maxTokenLifetimeSeconds = 24 * 3600;

interface CachedToken {
  value: string;
  expiresAt: number;
  refreshAt: number;
}

/** One shared token and token request; a failed early renewal keeps the still-valid token. */
export class ClientCredentialsTokenSource implements TokenSource {
  #cached: CachedToken | undefined;
  #inflight: Promise<CachedToken> | undefined;
  #cacheKey: Promise<string> | undefined;
  readonly #secrets: SecretSet;
  readonly #clientId: string;
  readonly #clientSecret: string;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly http: Http,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {
    // Stryker disable next-line StringLiteral: equivalent, the client makes this source only when options.ts found both set
    const { clientId = "", clientSecret = "" } = options;
    this.#clientId = clientId;
    this.#clientSecret = clientSecret;
    this.#secrets = new SecretSet([
      clientSecret,
      // The Basic credential, as sent and as a careless server might rebuild it.
      base64(`${formEncode(clientId)}:${formEncode(clientSecret)}`),
      base64(`${clientId}:${clientSecret}`),
    ]);
  }

  redact(text: string): string {
    return this.#secrets.redact(text);
  }

  current(): string | undefined {
    const cached = this.#cached;
    return cached && this.clock.monotonic() < cached.refreshAt ? cached.value : undefined;
  }

  async get(): Promise<string> {
    const now = this.clock.monotonic();
    const cached = this.#cached;
    if (cached && now < cached.refreshAt) return cached.value;
    if (cached && now < cached.expiresAt) {
      try {
        return (await this.#mint()).value;
      } catch {
        return cached.value;
      }
    }
    return (await this.#mint()).value;
  }

  invalidate(token: string): boolean {
    if (this.#cached?.value === token) this.#cached = undefined;
    return true;
  }

  #mint(): Promise<CachedToken> {
    this.#inflight ??= this.#request().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #request(): Promise<CachedToken> {
    const cache = this.options.tokenCache;
    const token = cache ? this.#local(await this.#shared(cache)) : await this.#requestHere();
    this.#secrets.addToken(token.value);
    this.#cached = token;
    return token;
  }

  async #shared(cache: NonNullable<ResolvedOptions["tokenCache"]>): Promise<SharedToken> {
    const { baseUrl, scopes } = this.options;
    this.#cacheKey ??= tokenCacheKey(baseUrl.href, this.#clientId, scopes);
    return obtainSharedToken({
      cache,
      key: await this.#cacheKey,
      now: () => this.clock.now(),
      sleep: (ms, signal) => this.clock.sleep(ms, signal),
      // The name only: a Redis client's message can carry its password.
      onCacheError: (error) =>
        this.log.warn("token cache unavailable; this process mints its own token", {
          error: error instanceof Error ? error.name : typeof error,
        }),
      mint: async () => this.#shareable(await this.#requestHere()),
    });
  }

  // Monotonic times mean nothing to other processes: shared tokens carry wall-clock ones.
  #shareable(token: CachedToken): SharedToken {
    const offset = this.clock.now() - this.clock.monotonic();
    return {
      accessToken: token.value,
      expiresAt: token.expiresAt + offset,
      refreshAt: token.refreshAt + offset,
    };
  }

  #local(token: SharedToken): CachedToken {
    const offset = this.clock.monotonic() - this.clock.now();
    return {
      value: token.accessToken,
      expiresAt: token.expiresAt + offset,
      refreshAt: token.refreshAt + offset,
    };
  }

  async #requestHere(): Promise<CachedToken> {
    const { scopes, tokenEndpointAuth, baseUrl } = this.options;
    const clientId = this.#clientId;
    const clientSecret = this.#clientSecret;
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (scopes.length) form.set("scope", scopes.join(" "));
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (tokenEndpointAuth === "client_secret_post") {
      form.set("client_id", clientId);
      form.set("client_secret", clientSecret);
    } else {
      // RFC 6749 section 2.3.1: each part form-urlencoded before Basic encoding.
      const pair = `${formEncode(clientId)}:${formEncode(clientSecret)}`;
      headers.authorization = `Basic ${base64(pair)}`;
    }
    const started = this.clock.monotonic();
    // Bounded by `timeoutMs`, not retried (the calls waiting on it do) and tied to no caller's signal.
    const { data } = await this.http.request(
      {
        method: "POST",
        url: `${baseUrl.href.replace(/\/$/, "")}${tokenPath}`,
        path: tokenPath,
        operation: "createToken",
        headers,
        body: form.toString(),
        auth: false,
        retry: false,
        target: "the token endpoint",
        read: async (answer) => readToken(answer, started),
        problem: tokenProblem,
        redact: (text) => this.redact(text),
      },
      {},
    );
    return data;
  }
}

async function readToken(answer: WireAnswer, started: number): Promise<CachedToken> {
  // Stryker disable next-line StringLiteral,ArrowFunction: equivalent, an unreadable body is no JSON whatever stands for it
  const text = await answer.text().catch(() => "");
  let body: { access_token?: unknown; expires_in?: unknown } | null = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: refused below.
  }
  const refuse = (what: string) =>
    new AuthenticationError({
      status: answer.status,
      method: "POST",
      path: tokenPath,
      headers: answer.headers(),
      message: `POST ${tokenPath} answered ${answer.status} ${what}.`,
    });
  const accessToken = body?.access_token;
  if (typeof accessToken !== "string" || !accessToken) throw refuse("without an access_token");
  // Optional (RFC 6749 5.1); any other value than positive seconds would mint a token per call.
  const expiresIn = body?.expires_in;
  if (
    expiresIn !== undefined &&
    (typeof expiresIn !== "number" || expiresIn <= 0 || expiresIn === Number.POSITIVE_INFINITY)
  ) {
    throw refuse("with an expires_in that is not a positive number of seconds");
  }
  const lifetimeMs =
    Math.min(expiresIn ?? defaultTokenLifetimeSeconds, maxTokenLifetimeSeconds) * 1000;
  // A token living no longer than the margin would be stale at birth: renewed at half-life.
  let margin = Math.max(60_000, lifetimeMs * 0.1);
  if (margin >= lifetimeMs) margin = lifetimeMs / 2;
  return {
    value: accessToken,
    expiresAt: started + lifetimeMs,
    refreshAt: started + lifetimeMs - margin,
  };
}

// An RFC 6749 `error` answer, rebuilt as a problem document.
function tokenProblem(text: string, status: number): unknown {
  let parsed: Record<string, unknown> | null = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the factory reads the text itself.
  }
  return typeof parsed?.error === "string" && typeof parsed.code !== "string"
    ? {
        type: "about:blank",
        title: parsed.error,
        status,
        code: parsed.error,
        detail: parsed.error_description,
      }
    : text;
}

export class ProvidedTokenSource implements TokenSource {
  readonly #secrets = new SecretSet();

  constructor(private readonly provide: string | (() => string | Promise<string>)) {}

  current(): undefined {
    return undefined;
  }

  async get(): Promise<string> {
    const token = typeof this.provide === "string" ? this.provide : await this.provide();
    if (typeof token === "string") this.#secrets.addToken(token);
    return token;
  }

  redact(text: string): string {
    return this.#secrets.redact(text);
  }

  invalidate(): boolean {
    return typeof this.provide === "function";
  }
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}
