/**
 * What an error means for an operator: a stable code, a message without secrets, what to do about
 * it, and whether trying again can help. The command line prints it, and a long-running loop (the
 * mirror's `run()`) ends on a fatal one instead of retrying something no retry can fix.
 */

import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  EdgeFirewallError,
  RequestValidationError,
  SubmissionTimeoutError,
} from "../core/errors";
import { boundText } from "../core/redact";
import { FATAL_MIRROR_CODES, MirrorError } from "../sync/errors";

/** An error as an operator should read it. */
export interface Diagnosis {
  /** Stable and machine-readable: the problem's code, a mirror error's code, or one named here. */
  code: string;
  /** What happened, in a line or a few; never a secret, a request body or a stack. */
  message: string;
  /** What to do about it, in a sentence; undefined when there is nothing better than the message. */
  hint: string | undefined;
  /** True when trying again cannot help: a configuration, credential or grant must change first. */
  fatal: boolean;
}

/** The token endpoint's path; its errors carry this `path` whatever the base URL's own path. */
const TOKEN_PATH = "/oauth2/token";

const hints = {
  credentials:
    "the token endpoint refused the client: check the client id and secret (--client-id / --client-secret or PARTNER_ORDERS_CLIENT_ID / PARTNER_ORDERS_CLIENT_SECRET)",
  scopes:
    "the token endpoint refused the scopes asked for: ask only for scopes the client holds (orders:read, sites:read)",
  noTokenEndpoint:
    "the base URL answers no token endpoint: check --base-url / PARTNER_ORDERS_BASE_URL (it should be the API root, without a path)",
  insufficientScope:
    "the credential lacks the scope this needs (partner-api/orders:read to read orders): ask the service's staff to grant it; `partner-orders me` lists the scopes in force",
  siteNotGranted:
    "a site asked for is not granted to this credential: check siteIds (--site) against the grantedSiteIds of `partner-orders me`",
  revoked:
    "the service refused a freshly minted token: the client may have been revoked, or the partner disabled or left without granted sites or scopes; check with `partner-orders me` and the service's staff",
  firewall:
    "the service's edge firewall refused the request (a per-IP rate rule or a managed rule): it usually passes after a while; if it persists, ask the service's staff",
  rateLimited: "the service's rate limit was reached: try again later",
  serverError:
    "the service failed or is unavailable: try again later; quote the requestId when escalating",
  connection: "the service could not be reached: check the network and the base URL",
  timeout: "the service did not answer in time: try again",
} as const;

/** The one reading of an error for an operator: its code, message, hint, and whether it is fatal. */
export function diagnose(error: unknown): Diagnosis {
  // The firewall's 403 is no answer of the service's own, on the token endpoint as anywhere.
  if (error instanceof EdgeFirewallError) {
    return { code: "edge_firewall", message: error.message, hint: hints.firewall, fatal: false };
  }
  if (error instanceof APIError) {
    return error.path === TOKEN_PATH ? tokenEndpoint(error) : apiCall(error);
  }
  // A timeout is a connection error too: the narrower class first.
  if (error instanceof APITimeoutError) {
    return { code: "timeout", message: error.message, hint: hints.timeout, fatal: false };
  }
  if (error instanceof APIConnectionError) {
    return {
      code: "connection_error",
      message: error.message,
      hint: hints.connection,
      fatal: false,
    };
  }
  if (error instanceof MirrorError) {
    return {
      code: error.code,
      message: withoutHint(error.message, error.hint),
      hint: error.hint,
      fatal: FATAL_MIRROR_CODES.has(error.code),
    };
  }
  if (error instanceof RequestValidationError) {
    return { code: "invalid_request", message: error.message, hint: undefined, fatal: false };
  }
  if (error instanceof SubmissionTimeoutError) {
    return { code: "submission_timeout", message: error.message, hint: undefined, fatal: false };
  }
  if (error instanceof APIUserAbortError) {
    return { code: "aborted", message: error.message, hint: undefined, fatal: false };
  }
  return { code: "unexpected", message: describe(error), hint: undefined, fatal: false };
}

/**
 * The token endpoint answers RFC 6749 errors (`invalid_client`, `invalid_scope`...). A 404, a
 * redirect, a page that is not JSON, a success without an `access_token`, or the gateway's own
 * `invalid_token` (which it gives any path it has no route for) all mean the URL reached is not a
 * token endpoint: the base URL is wrong, not the credential.
 */
function tokenEndpoint(error: APIError): Diagnosis {
  const { status, code } = error;
  if (status === 429) return transient(error, "rate_limit_exceeded", hints.rateLimited);
  if (status >= 500) return transient(error, `http_${status}`, hints.serverError);
  if (status < 400 || status === 404 || code === "invalid_token" || !code) {
    return {
      code: "token_endpoint_not_found",
      message: `No OAuth token came from the token endpoint (${error.message})`,
      hint: hints.noTokenEndpoint,
      fatal: true,
    };
  }
  return {
    code,
    message: error.message,
    hint: code === "invalid_scope" ? hints.scopes : hints.credentials,
    fatal: true,
  };
}

/** An answer of the service to an API call, after the client's own retries. */
function apiCall(error: APIError): Diagnosis {
  const { status, code } = error;
  if (status === 429) return transient(error, "rate_limit_exceeded", hints.rateLimited);
  if (status >= 500) return transient(error, `http_${status}`, hints.serverError);
  // The client already dropped its token and retried with a new one: the credential itself is refused.
  if (status === 401) return fatal(error, code || "invalid_token", hints.revoked);
  if (code === "insufficient_scope") return fatal(error, code, hints.insufficientScope);
  if (code === "invalid_site_id") return fatal(error, code, hints.siteNotGranted);
  return { code: code || `http_${status}`, message: error.message, hint: undefined, fatal: false };
}

function transient(error: APIError, fallback: string, hint: string): Diagnosis {
  return { code: error.code || fallback, message: error.message, hint, fatal: false };
}

function fatal(error: APIError, code: string, hint: string): Diagnosis {
  return { code, message: error.message, hint, fatal: true };
}

/** A mirror error's message ends with its hint; the diagnosis carries the hint on its own. */
function withoutHint(message: string, hint: string | undefined): string {
  return hint && message.endsWith(` ${hint}`) ? message.slice(0, -hint.length - 1) : message;
}

/**
 * Anything else (a database driver's error, a bug): its class and message only. Driver errors carry
 * fields (a connection's address, a query) that have no place in a line for an operator.
 */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
    return boundText(`${name}${error.message}`, 1_000);
  }
  return boundText(String(error), 1_000);
}
