// @ts-nocheck
import type { TokenSource } from "../core/auth";
import {
  APIError,
  APIUserAbortError,
  AuthenticationError,
  errorFromResponse,
  PartnerOrdersError,
} from "../core/errors";
import type { Log } from "../core/logger";
import type { ResolvedOptions } from "../core/options";
import { withRetries } from "../core/retry";
import { type Channel, send, untilAborted } from "../core/send";
import type { Clock } from "./clock";
import type { McpAccess } from "./mcp-access";

/**
 * Answers the SDK gets as typed errors of this package, retried by the client's policy: 401 (one
 * fresh token), 403 (the edge firewall; no scope check applies to POST /v1/mcp), 429 (`Retry-After`)
 * and 5xx. Every other status is an MCP transport answer (400, 404, 405 for the optional GET stream,
 * 406, 415) and goes back to the SDK untouched.
 */
function isTypedStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 429 || status >= 500;
}

/**
 * The fetch behind `partner-orders/mcp`: the REST client's own HTTP path (`send`, so mutual TLS
 * and a custom fetch apply) and its token source (so the MCP connection shares the token cache and
 * its single flight), under the same retry policy and `maxRetries` (API document, POST /v1/mcp:
 * "Errors at HTTP level: 401, 429 (with Retry-After)").
 */
export function createMcpFetch(
  channel: Channel,
  tokens: TokenSource | undefined,
  options: ResolvedOptions,
  clock: Clock,
  log: Log,
): McpAccess["fetch"] {
  return (url, init = {}) => {
    const method = (init.method ?? "GET").toUpperCase();
    const path = new URL(url).pathname;
    const signal = init.signal ?? undefined;
    const rejected = new WeakMap<AuthenticationError, string>();

    const attempt = async (): Promise<Response> => {
      const headers = new Headers(init.headers);
      // The client's defaultHeaders, under what the MCP SDK set (its Accept, session headers).
      for (const [name, value] of Object.entries(options.defaultHeaders)) {
        if (!headers.has(name)) headers.set(name, value);
      }
      let token: string | undefined;
      // Bounded by timeoutMs like a REST attempt, the wait for a token included, until the answer
      // arrives; the caller's signal still ends an event stream read after that (core/send.ts).
      const response = await send(
        {
          channel,
          clock,
          timeoutMs: options.timeoutMs,
          signal,
          method,
          path: () => path,
        },
        async (timeout, fetch) => {
          if (tokens) token = await untilAborted(tokens.get(timeout), timeout);
          if (token) headers.set("authorization", `Bearer ${token}`);
          // send() never follows a redirect: credentials must not leave the configured origin.
          return fetch(new Request(url, { ...init, headers, redirect: "manual", signal: timeout }));
        },
      );
      if (response.ok || !isTypedStatus(response.status)) return response;
      const text = await response.text().catch(() => "");
      const error = errorFromResponse(
        method,
        path,
        response,
        text,
        clock.now(),
        tokens && ((t) => tokens.redact(t)),
      );
      if (error instanceof AuthenticationError && token) rejected.set(error, token);
      throw error;
    };

    return withRetries(attempt, {
      maxRetries: options.maxRetries,
      policy: options.retry,
      budget: options.retry.budget ? options.retryBudget : undefined,
      clock,
      signal,
      onUnauthorized: (error) => {
        const token = rejected.get(error);
        return token !== undefined && tokens?.invalidate(token) === true;
      },
      onRetry: ({ error, attempt: n, delayMs }) =>
        log.info(`retrying ${method} ${path}`, {
          status: error instanceof APIError ? error.status : undefined,
          code: error instanceof APIError ? error.code : undefined,
          attempt: n,
          delayMs: Math.round(delayMs),
        }),
    }).catch((error: unknown) => {
      if (signal?.aborted && !(error instanceof PartnerOrdersError)) throw new APIUserAbortError();
      throw error;
    });
  };
}
