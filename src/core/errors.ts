import type { Submission } from "./models";
import { boundText } from "./redact";

/** The code catalog of the API document ("Errors"), open to codes added within v1. */
export type ProblemCode =
  | "invalid_cursor"
  | "invalid_site_id"
  | "invalid_order_number"
  | "invalid_product_id"
  | "invalid_service_type"
  | "updated_since_not_supported"
  | "invalid_request"
  | "invalid_submission_id"
  | "invalid_quantity"
  | "invalid_token"
  | "insufficient_scope"
  | "order_not_found"
  | "product_not_found"
  | "quote_product_not_found"
  | "submission_not_found"
  | "ordering_not_provisioned"
  | "partner_order_id_reused"
  | "quote_invalid"
  | "rate_limit_exceeded"
  | "internal_error"
  | "service_unavailable"
  | (string & {});

/** An RFC 9457 problem document as the service sends it. Unknown members pass through. */
export interface Problem {
  /** Always `about:blank` from this service. */
  type: string;
  /** Short summary of the status. */
  title: string;
  /** The HTTP status, repeated. */
  status: number;
  /** Stable machine-readable identifier: branch on this. */
  code: ProblemCode;
  /** Prose that may be reworded at any time (Versioning rule 3): show it, never parse it. */
  detail: string;
  /** Echo of the request id: quote it when escalating to the service's staff. */
  requestId: string;
  [member: string]: unknown;
}

/** One broken rule of a request, found before anything was sent. */
export interface Violation {
  /** Where in the request, e.g. `lines[3].shipTo.email`; `""` for the request as a whole. */
  path: string;
  /** What is wrong there, e.g. `must have 1 to 100 entries, got 101`. */
  message: string;
}

// Brands make the type guards work across two copies of the package.
const brand = Symbol.for("partner-orders.error");
const apiErrorBrand = Symbol.for("partner-orders.api-error");

/** Base of every error the SDK throws; {@link isPartnerOrdersError} also spots another copy's. */
export class PartnerOrdersError extends Error {
  /** The class's own name, e.g. `"RateLimitError"`. */
  override name = "PartnerOrdersError";
  /** @hidden The mark {@link isPartnerOrdersError} and {@link isProblem} look for. */
  declare readonly [brand]: true;
}
Object.defineProperty(PartnerOrdersError.prototype, brand, { value: true });

/** @hidden What `errorFromResponse` hands an error class; not part of the public surface. */
export interface APIErrorInit {
  status: number;
  method: string;
  path: string;
  headers: Headers;
  problem?: Problem | undefined;
  message?: string;
}

/**
 * The service answered with an error status: a subclass per documented status, else a plain
 * `APIError`. Branch on `code` with {@link isProblem}, never on `detail` or the message.
 * @example
 * try {
 *   await client.orders.get(100001);
 * } catch (error) {
 *   if (isProblem(error, "order_not_found")) console.log(error.requestId);
 *   else throw error;
 * }
 */
export class APIError extends PartnerOrdersError {
  override name = "APIError";
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The problem document's `code`; `undefined` when the answer was not a problem document. */
  readonly code: ProblemCode | undefined;
  /** The problem document's `title`, when there is one. */
  readonly title: string | undefined;
  /** The problem document's `detail`: prose to show or log, never to parse. */
  readonly detail: string | undefined;
  /** The service's request id, to quote when escalating. */
  readonly requestId: string | undefined;
  /** The problem document exactly as received, unknown members included. */
  readonly problem: Problem | undefined;
  /** The answer's headers (`Retry-After` and the rate-limit headers among them). */
  readonly headers: Headers;
  /** The HTTP method of the request that failed. */
  readonly method: string;
  /** The request path, without query string. */
  readonly path: string;

  /** @hidden Errors are made by `errorFromResponse`; the init shape may change. */
  constructor(init: APIErrorInit) {
    super(init.message ?? describe(init));
    this.status = init.status;
    this.problem = init.problem;
    this.code = init.problem?.code;
    this.title = init.problem?.title;
    this.detail = init.problem?.detail;
    this.requestId = init.problem?.requestId;
    this.headers = init.headers;
    this.method = init.method;
    this.path = init.path;
    // Per instance: a top-level statement would keep this class in bundles that never use it.
    Object.defineProperty(this, apiErrorBrand, { value: true });
  }
}

function describe({ method, path, status, problem }: APIErrorInit): string {
  // Server text, bounded: a hostile 5 MB detail must not become a 5 MB message.
  let text = `${method} ${path} failed with ${status}`;
  if (problem?.code) text += ` ${boundText(problem.code, 100)}`;
  if (problem?.detail) text += `: ${boundText(problem.detail)}`;
  if (problem?.requestId) text += ` (requestId ${boundText(problem.requestId, 100)})`;
  return text;
}

/** 400: the request broke a rule of the service (`invalid_request`, `invalid_cursor`...). Never retried. */
export class BadRequestError extends APIError {
  override name = "BadRequestError";
}
/** 401 `invalid_token`: the credential was refused, after one retry with a fresh token. */
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}
/** 403 with a problem document, `insufficient_scope`: the credential lacks the scope. Never retried. */
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}
/** 404: not found, or outside the granted sites (indistinguishable). Not proof it never existed. */
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}
/** 409: `partner_order_id_reused` or `ordering_not_provisioned`. Final, never retried. */
export class ConflictError extends APIError {
  override name = "ConflictError";
}
/** 422 `quote_invalid`: the platform refused the quote; `detail` carries its message. */
export class UnprocessableEntityError extends APIError {
  override name = "UnprocessableEntityError";
}
/** 429 `rate_limit_exceeded`, once retries are used up or the server asks for more than 60 s. */
export class RateLimitError extends APIError {
  override name = "RateLimitError";
  /** What `Retry-After` asked for, in seconds; null when absent. */
  readonly retryAfterSeconds: number | null;
  /** @hidden Errors are made by `errorFromResponse`; the init shape may change. */
  constructor(init: APIErrorInit & { retryAfterSeconds: number | null }) {
    super(init);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
/** 500 `internal_error`, after at most one spaced retry. */
export class InternalServerError extends APIError {
  override name = "InternalServerError";
}
/** 503 `service_unavailable`, once the backoff retries (`maxRetries`) ran out. */
export class ServiceUnavailableError extends APIError {
  override name = "ServiceUnavailableError";
}

/** A 403 without a problem document: the edge firewall's, unrelated to scopes. */
export class EdgeFirewallError extends APIError {
  override name = "EdgeFirewallError";
}

/** No answer: the connection failed or was cut. */
export class APIConnectionError extends PartnerOrdersError {
  override name = "APIConnectionError";
  constructor(message = "Connection error.", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An HTTP attempt took longer than `timeoutMs`. */
export class APITimeoutError extends APIConnectionError {
  override name = "APITimeoutError";
  constructor(message = "Request timed out.") {
    super(message);
  }
}

/** The caller's `AbortSignal` fired; with a `submissionId` the order exists: resume, never resubmit. */
export class APIUserAbortError extends PartnerOrdersError {
  override name = "APIUserAbortError";
  /** The submission the aborted wait was following, when one was known. */
  readonly submissionId: string | undefined;
  constructor(message = "Request was aborted.", options?: { submissionId?: string }) {
    super(message);
    this.submissionId = options?.submissionId;
  }
}

interface ResponseDecodeInit {
  operationId: string;
  path: string;
  reason: string;
  index?: number | undefined;
  orderNumber?: number | undefined;
}

/** A success answer the SDK cannot read (not JSON, or a decimal that is no amount); never retried. */
export class ResponseDecodeError extends PartnerOrdersError {
  override name = "ResponseDecodeError";
  /** The operation whose answer was refused, e.g. `listOrders`. */
  readonly operationId: string;
  /** The field, e.g. `orders[].totals.order`; `""` for the body as a whole. */
  readonly path: string;
  /** Why the value was refused, e.g. `text that is not a plain decimal`; never the value. */
  readonly reason: string;
  /** The row's position in the first list of `path` (`orders[3]` is 3); `undefined` outside a list. */
  readonly index: number | undefined;
  /** The row's `orderNumber`, when the row has one that is a safe integer. */
  readonly orderNumber: number | undefined;

  /** @hidden Made by the SDK's response decoding; the init shape may change. */
  constructor(message: string, init: ResponseDecodeInit) {
    super(message);
    this.operationId = init.operationId;
    this.path = init.path;
    this.reason = init.reason;
    this.index = init.index;
    this.orderNumber = init.orderNumber;
  }
}

/** A request that breaks a documented limit or format, caught before any network call. */
export class RequestValidationError extends PartnerOrdersError {
  override name = "RequestValidationError";
  /** Every broken rule, not just the first, in request order. */
  readonly violations: readonly Violation[];
  constructor(violations: readonly Violation[], what = "request") {
    const lines = violations.map((v) => `  ${v.path || "(request)"}: ${v.message}`);
    super(`Invalid ${what}; nothing was sent:\n${lines.join("\n")}`);
    this.violations = violations;
  }
}

/** The reason a webhook delivery was refused by `verifyWebhook`. */
export type WebhookVerificationReason =
  | "missing_header"
  | "malformed_header"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch";

/** A webhook delivery whose `Platform-Signature` does not hold (API document, "Signing"). */
export class WebhookVerificationError extends PartnerOrdersError {
  override name = "WebhookVerificationError";
  /** Which check failed; stable, unlike the message. */
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The wait's deadline came before the submission was terminal; the order may still complete. */
export class SubmissionTimeoutError<S = Submission> extends PartnerOrdersError {
  override name = "SubmissionTimeoutError";
  /** Resume with `client.submissions.wait(submissionId)`; `""` when the POST got no answer: resend it. */
  readonly submissionId: string;
  /** The last state seen; `undefined` when the deadline came before any answer. */
  readonly submission: S | undefined;
  constructor(submissionId: string, submission: S | undefined, waitedMs: number) {
    const status = (submission as { status?: string } | undefined)?.status ?? "unknown";
    super(
      submissionId
        ? `Submission ${submissionId} was still ${status} after ${waitedMs} ms; ` +
            "resume with client.submissions.wait(submissionId)."
        : `No answer to the order submission came within ${waitedMs} ms, so the order may or may ` +
            "not exist. Send the identical request again (same partnerOrderId): the service " +
            "answers with the original submission instead of creating a second order.",
    );
    this.submissionId = submissionId;
    this.submission = submission;
  }
}

/** The order WAS submitted, but the `Location` to poll was refused: resume, never resubmit. */
export class SubmissionLocationError extends PartnerOrdersError {
  override name = "SubmissionLocationError";
  /** The submission the service created or found, from the POST's answer body. */
  readonly submissionId: string;
  constructor(submissionId: string, reason: string) {
    const id = boundText(submissionId, 100);
    super(
      `The order was submitted (submission ${id}), but ${boundText(reason)}. Resume with ` +
        `client.submissions.wait("${id}"); do not submit it again under another partnerOrderId.`,
    );
    this.submissionId = submissionId;
  }
}

/** True when `err` is an {@link APIError} (of any copy of this package) with this `code`. */
export function isProblem<C extends ProblemCode>(
  err: unknown,
  code: C,
): err is APIError & {
  /** The code asked for. */
  code: C;
  /** The problem document, always present when a code matched. */
  problem: Problem;
} {
  if (!(err instanceof Error)) return false;
  // Another error of the family given a `status` and a `code` is still no answer of the service.
  const isApiError =
    err instanceof APIError || (err as { [apiErrorBrand]?: unknown })[apiErrorBrand] === true;
  return isApiError && (err as APIError).code === code;
}

/** True for any error this package threw, from any copy of it. */
export function isPartnerOrdersError(err: unknown): err is PartnerOrdersError {
  return err instanceof Error && (err as { [brand]?: unknown })[brand] === true;
}
