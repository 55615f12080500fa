import { APIError } from "../core/errors";
import { MirrorError } from "./errors";

/** Mirror errors that waiting can mend. */
const TRANSIENT = new Set([
  "store_unavailable",
  "sweep_held",
  "sweep_lease_lost",
  "cursor_cycle",
  "cursor_refused",
]);

/** The token endpoint's own error codes (RFC 6749, section 5.2). */
const OAUTH_ERRORS = new Set([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
]);

/**
 * The error `run()` stops with when `error` is one no retry can fix, with the problem's code and
 * what to do; undefined when waiting may mend it.
 */
export function fatalError(error: unknown): MirrorError | undefined {
  if (error instanceof MirrorError) return TRANSIENT.has(error.code) ? undefined : error;
  if (!(error instanceof APIError)) return undefined;
  const stop = (code: string, hint: string) =>
    new MirrorError(code, `The mirror stops: ${error.message}.`, { hint, cause: error });
  if (error.path.startsWith("/oauth2/")) {
    if (error.status === 429 || error.status >= 500) return undefined;
    // An OAuth error is the token endpoint speaking; anything else (a 404, a page, the gateway's
    // invalid_token for a path it does not route) means no token endpoint answered at all.
    if (error.code && OAUTH_ERRORS.has(error.code))
      return stop(
        error.code,
        "The token endpoint refused the client credentials: check the client id and secret (PARTNER_ORDERS_CLIENT_ID, PARTNER_ORDERS_CLIENT_SECRET) and the scopes asked for.",
      );
    return stop(
      "token_endpoint_not_found",
      "The base URL answers no token endpoint: check baseUrl (PARTNER_ORDERS_BASE_URL); it is the API root, without a path.",
    );
  }
  if (error.code === "insufficient_scope")
    return stop(error.code, "The credential lacks a scope the mirror needs: orders:read.");
  if (error.code === "invalid_site_id")
    return stop(
      error.code,
      "A site in siteIds is not granted to this credential: compare them with grantedSiteIds from `partner-orders me`.",
    );
  if (error.status === 401)
    return stop(
      error.code ?? "invalid_token",
      "The service refuses the credential even with a fresh token: it may have been revoked, or the partner disabled.",
    );
  return undefined;
}
