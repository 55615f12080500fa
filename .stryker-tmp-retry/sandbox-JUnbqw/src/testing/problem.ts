/**
 * Answers as the service writes them: every error an RFC 9457 problem document with `type`
 * `about:blank`, a title, the status, a catalog `code`, prose `detail` and the `requestId`
 * (API document, "Errors").
 */
// @ts-nocheck

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

/** The gateway's fixed sentence for every authentication failure: it never says which check failed. */
export const AUTH_FAILURE_DETAIL = "The request could not be authenticated.";

/** The fixed generic sentence of every 500 internal_error (API document, code catalog). */
export const INTERNAL_ERROR_DETAIL = "An unexpected error occurred.";

/** Details the service uses when a fault is injected with only a status. */
const DEFAULT_CODES: Record<number, string> = {
  400: "invalid_request",
  401: "invalid_token",
  403: "insufficient_scope",
  404: "order_not_found",
  409: "partner_order_id_reused",
  422: "quote_invalid",
  429: "rate_limit_exceeded",
  500: "internal_error",
  503: "service_unavailable",
};

export const defaultCodeFor = (status: number): string => DEFAULT_CODES[status] ?? "internal_error";

/** Problem `detail` of an injected fault given only a status: the service's fixed sentences. */
export function defaultDetailFor(status: number): string {
  if (status === 401) return AUTH_FAILURE_DETAIL;
  if (status === 500) return INTERNAL_ERROR_DETAIL;
  return "Injected fault.";
}

export function problem(
  status: number,
  code: string,
  detail: string,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  const body = {
    type: "about:blank",
    title: TITLES[status] ?? "Error",
    status,
    code,
    detail,
    requestId,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/problem+json", "x-request-id": requestId, ...headers },
  });
}

export function json(
  status: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-request-id": requestId, ...headers },
  });
}

/** Thrown inside a route to answer with a problem document; the pipeline turns it into one. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}
