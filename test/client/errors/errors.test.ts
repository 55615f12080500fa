import { describe, expect, expectTypeOf, it } from "vitest";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  EdgeFirewallError,
  InternalServerError,
  isPartnerOrdersError,
  isProblem,
  NotFoundError,
  PartnerOrdersError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  ResponseDecodeError,
  ServiceUnavailableError,
  SubmissionLocationError,
  SubmissionTimeoutError,
  UnprocessableEntityError,
  WebhookVerificationError,
} from "../../../src/core/errors";
import { errorFromResponse } from "../../../src/core/http/problem";
import { parseRetryAfter } from "../../../src/core/http/retry";
import type { Submission } from "../../../src/core/models";
import { harness, rejection } from "../../support/client";
import { problem, raw } from "../../support/fake-server";

async function errorFor(answer: () => Response): Promise<unknown> {
  const { client, server } = harness({ maxRetries: 0 });
  server.on("GET /v1/orders/42", answer);
  return rejection(client.orders.get(42));
}

describe("problem documents", () => {
  it("carry every field of the document onto the error", async () => {
    const error = await errorFor(() =>
      problem(
        404,
        "order_not_found",
        { detail: "No such order.", requestId: "r-1", extra: 5 },
        {
          "x-ratelimit-remaining": "9",
        },
      ),
    );
    expect(error).toBeInstanceOf(NotFoundError);
    const e = error as NotFoundError;
    expect(e.status).toBe(404);
    expect(e.code).toBe("order_not_found");
    expect(e.title).toBe("Status 404");
    expect(e.detail).toBe("No such order.");
    expect(e.requestId).toBe("r-1");
    expect(e.problem).toMatchObject({ code: "order_not_found", extra: 5, type: "about:blank" });
    expect(e.headers.get("x-ratelimit-remaining")).toBe("9");
  });

  it.each([
    [400, "invalid_order_number", BadRequestError],
    [403, "insufficient_scope", PermissionDeniedError],
    [404, "order_not_found", NotFoundError],
    [409, "ordering_not_provisioned", ConflictError],
    [422, "quote_invalid", UnprocessableEntityError],
    [429, "rate_limit_exceeded", RateLimitError],
    [500, "internal_error", InternalServerError],
    [503, "service_unavailable", ServiceUnavailableError],
  ])("%i gives its class", async (status, code, type) => {
    const error = await errorFor(() => problem(status, code));
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as APIError).name).toBe(type.name);
  });

  it("an unknown code on a known status keeps its code and the status's class", async () => {
    const error = await errorFor(() => problem(409, "brand_new_conflict"));
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).code).toBe("brand_new_conflict");
  });

  it("an unknown status gives a plain APIError", async () => {
    const error = await errorFor(() => problem(418, "teapot"));
    expect((error as APIError).constructor).toBe(APIError);
    expect((error as APIError).status).toBe(418);
    expect((error as APIError).code).toBe("teapot");
  });

  it("says method, path, status and code in its message", async () => {
    const error = (await errorFor(() => problem(404, "order_not_found"))) as Error;
    expect(error.message).toContain("GET");
    expect(error.message).toContain("/v1/orders/42");
    expect(error.message).toContain("404");
    expect(error.message).toContain("order_not_found");
  });
});

describe("403 that is not a problem document", () => {
  it.each([
    ["no body", () => new Response(null, { status: 403 })],
    ["an HTML body", () => raw("<html>Forbidden</html>", 403, { "content-type": "text/html" })],
  ])("with %s is an EdgeFirewallError, not a PermissionDeniedError", async (_, answer) => {
    const error = await errorFor(answer);
    expect(error).toBeInstanceOf(EdgeFirewallError);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(PermissionDeniedError);
    expect((error as EdgeFirewallError).status).toBe(403);
    expect((error as EdgeFirewallError).code).toBeUndefined();
    expect((error as EdgeFirewallError).requestId).toBeUndefined();
  });

  it("while a problem 403 insufficient_scope is a PermissionDeniedError", async () => {
    const error = await errorFor(() => problem(403, "insufficient_scope"));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).not.toBeInstanceOf(EdgeFirewallError);
  });
});

describe("a proxy's HTML 502", () => {
  it("becomes a typed APIError, never a SyntaxError", async () => {
    const error = await errorFor(() =>
      raw("<html><body>Bad Gateway</body></html>", 502, { "content-type": "text/html" }),
    );
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(SyntaxError);
    expect((error as APIError).status).toBe(502);
    expect((error as APIError).code).toBeUndefined();
    expect((error as Error).message).toContain("502");
  });

  it("a success with a body that is not JSON is a PartnerOrdersError, not a SyntaxError", async () => {
    const error = await errorFor(() => raw("<html>ok</html>", 200));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(error).not.toBeInstanceOf(SyntaxError);
  });
});

describe("isProblem", () => {
  it("is true for the real error with that code, false for another code", async () => {
    const error = await errorFor(() => problem(404, "order_not_found"));
    expect(isProblem(error, "order_not_found")).toBe(true);
    expect(isProblem(error, "product_not_found")).toBe(false);
  });

  it("is false for a look-alike plain object and for non-errors", () => {
    const lookAlike = { name: "NotFoundError", status: 404, code: "order_not_found", message: "x" };
    expect(isProblem(lookAlike, "order_not_found")).toBe(false);
    const plainError = Object.assign(new Error("x"), { status: 404, code: "order_not_found" });
    expect(isProblem(plainError, "order_not_found")).toBe(false);
    for (const value of [null, undefined, "order_not_found", 404, {}]) {
      expect(isProblem(value, "order_not_found")).toBe(false);
    }
  });
});

describe("isProblem on other errors of the family", () => {
  it("is false for a PartnerOrdersError that is not an APIError, even given a status and code", () => {
    const notAnAnswer = Object.assign(new PartnerOrdersError("x"), {
      status: 404,
      code: "order_not_found",
    });
    expect(isProblem(notAnAnswer, "order_not_found")).toBe(false);
  });

  it("is true for an APIError of another copy of the package (marked by a global symbol)", () => {
    const fromOtherCopy = Object.assign(new Error("x"), { status: 404, code: "order_not_found" });
    Object.defineProperty(fromOtherCopy, Symbol.for("partner-orders.api-error"), { value: true });
    expect(isProblem(fromOtherCopy, "order_not_found")).toBe(true);
  });
});

describe("SubmissionTimeoutError", () => {
  it("types its submission as the Submission it carries (API.md, Waiting for a submission)", () => {
    expectTypeOf<SubmissionTimeoutError["submission"]>().toEqualTypeOf<Submission | undefined>();
  });
});

const noHeaders = { status: 0, headers: new Headers() };
const answer = (status: number, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers(headers),
});
const notFound = {
  type: "about:blank",
  title: "Not Found",
  status: 404,
  code: "order_not_found",
  detail: "No order 9.",
  requestId: "req-1",
};

describe("the class of an error answer", () => {
  it.each([
    [400, BadRequestError, "BadRequestError"],
    [401, AuthenticationError, "AuthenticationError"],
    [403, PermissionDeniedError, "PermissionDeniedError"],
    [404, NotFoundError, "NotFoundError"],
    [409, ConflictError, "ConflictError"],
    [422, UnprocessableEntityError, "UnprocessableEntityError"],
    [429, RateLimitError, "RateLimitError"],
    [500, InternalServerError, "InternalServerError"],
    [503, ServiceUnavailableError, "ServiceUnavailableError"],
    [418, APIError, "APIError"],
  ])("%i with a problem document is a %o named after it", (status, Class, name) => {
    const error = errorFromResponse("GET", "/v1/x", answer(status), { ...notFound, status });
    expect(error.constructor).toBe(Class);
    expect(error.name).toBe(name);
    expect(error.status).toBe(status);
  });

  it("a 403 without a problem document is the edge firewall's, with no code", () => {
    const error = errorFromResponse("GET", "/v1/x", answer(403), "<html>Forbidden</html>");
    expect(error).toBeInstanceOf(EdgeFirewallError);
    expect(error.name).toBe("EdgeFirewallError");
    expect(error.code).toBeUndefined();
    expect(error.message).toBe("GET /v1/x failed with 403");
  });

  it("a 429 carries Retry-After in seconds, or null without one", () => {
    const limited = errorFromResponse(
      "GET",
      "/v1/x",
      answer(429, { "retry-after": "7" }),
      notFound,
    );
    expect((limited as RateLimitError).retryAfterSeconds).toBe(7);
    const bare = errorFromResponse("GET", "/v1/x", answer(429), notFound);
    expect((bare as RateLimitError).retryAfterSeconds).toBeNull();
  });
});

describe("the problem document read from an answer", () => {
  it("is read from JSON text, with missing members filled in", () => {
    const error = errorFromResponse(
      "GET",
      "/v1/x",
      answer(409),
      '{"code":"partner_order_id_reused"}',
    );
    expect(error.problem).toEqual({
      type: "about:blank",
      title: "",
      status: 409,
      code: "partner_order_id_reused",
      detail: "",
      requestId: "",
    });
  });

  it("keeps the members it was given and unknown ones", () => {
    const doc = { ...notFound, type: "urn:x", status: 499, extra: [1] };
    const error = errorFromResponse("GET", "/v1/x", answer(404), doc);
    expect(error.problem).toEqual(doc);
  });

  it("a title alone makes a problem document; members of the wrong type are replaced", () => {
    const doc = { title: "Gone", type: 1, status: "x", code: 2, detail: {}, requestId: 3 };
    const error = errorFromResponse("GET", "/v1/x", answer(410), doc);
    expect(error.problem).toMatchObject({
      type: "about:blank",
      title: "Gone",
      status: 410,
      code: "",
      detail: "",
      requestId: "",
    });
    expect(error.code).toBe("");
  });

  it.each([
    ["an array", [notFound]],
    ["null", null],
    ["a number", 5],
    ["text that is not JSON", "oops"],
    ["JSON without code or title", '{"detail":"d"}'],
  ])("%s is no problem document", (_what, body) => {
    const error = errorFromResponse("GET", "/v1/x", answer(500), body);
    expect(error.problem).toBeUndefined();
    expect(error.requestId).toBeUndefined();
  });

  it("is redacted when a redaction is given", () => {
    const error = errorFromResponse(
      "GET",
      "/v1/x",
      answer(401),
      { ...notFound, detail: "token abc123 refused" },
      0,
      (text) => text.replaceAll("abc123", "[redacted]"),
    );
    expect(error.detail).toBe("token [redacted] refused");
  });
});

describe("an error answer's message", () => {
  it("names method, path, status, code, detail and request id", () => {
    const error = errorFromResponse("GET", "/v1/orders/9", answer(404), notFound);
    expect(error.message).toBe(
      "GET /v1/orders/9 failed with 404 order_not_found: No order 9. (requestId req-1)",
    );
  });

  it("bounds a hostile code and request id to 100 characters each", () => {
    const long = "c".repeat(150);
    const error = errorFromResponse("GET", "/v1/x", answer(400), {
      ...notFound,
      code: long,
      detail: "",
      requestId: long,
    });
    const bounded = `${"c".repeat(100)}…`;
    expect(error.message).toBe(`GET /v1/x failed with 400 ${bounded} (requestId ${bounded})`);
  });
});

describe("errors the SDK raises itself", () => {
  it("have their names and default messages", () => {
    expect(new PartnerOrdersError("x").name).toBe("PartnerOrdersError");
    const connection = new APIConnectionError();
    expect([connection.name, connection.message]).toEqual([
      "APIConnectionError",
      "Connection error.",
    ]);
    const cause = new Error("reset");
    expect(new APIConnectionError("m", { cause }).cause).toBe(cause);
    const timeout = new APITimeoutError();
    expect([timeout.name, timeout.message]).toEqual(["APITimeoutError", "Request timed out."]);
    const abort = new APIUserAbortError();
    expect([abort.name, abort.message, abort.submissionId]).toEqual([
      "APIUserAbortError",
      "Request was aborted.",
      undefined,
    ]);
    expect(new APIUserAbortError("m", { submissionId: "s-1" }).submissionId).toBe("s-1");
    const webhook = new WebhookVerificationError("signature_mismatch", "bad");
    expect([webhook.name, webhook.reason, webhook.message]).toEqual([
      "WebhookVerificationError",
      "signature_mismatch",
      "bad",
    ]);
  });

  it("a validation error lists each violation, the whole request as (request)", () => {
    const error = new RequestValidationError([
      { path: "lines[0].quantity", message: "must be at least 1" },
      { path: "", message: "must be an object" },
    ]);
    expect(error.name).toBe("RequestValidationError");
    expect(error.message).toBe(
      "Invalid request; nothing was sent:\n  lines[0].quantity: must be at least 1\n  (request): must be an object",
    );
    expect(new RequestValidationError([], "client options").message).toBe(
      "Invalid client options; nothing was sent:\n",
    );
  });

  it("a wait that timed out says how to resume, or how to resend when no id came back", () => {
    const pending = new SubmissionTimeoutError("s-1", { status: "processing" }, 3000);
    expect(pending.name).toBe("SubmissionTimeoutError");
    expect(pending.message).toBe(
      "Submission s-1 was still processing after 3000 ms; resume with client.submissions.wait(submissionId).",
    );
    expect(new SubmissionTimeoutError("s-2", undefined, 5).message).toBe(
      "Submission s-2 was still unknown after 5 ms; resume with client.submissions.wait(submissionId).",
    );
    expect(new SubmissionTimeoutError("", undefined, 5).message).toBe(
      "No answer to the order submission came within 5 ms, so the order may or may not exist. " +
        "Send the identical request again (same partnerOrderId): the service answers with the " +
        "original submission instead of creating a second order.",
    );
  });

  it("a refused Location names the submission to resume", () => {
    const error = new SubmissionLocationError("s-1", "its Location points elsewhere");
    expect(error.name).toBe("SubmissionLocationError");
    expect(error.submissionId).toBe("s-1");
    expect(error.message).toBe(
      'The order was submitted (submission s-1), but its Location points elsewhere. Resume with client.submissions.wait("s-1"); do not submit it again under another partnerOrderId.',
    );
  });

  it("an answer that cannot be read keeps its operation, field, reason and row", () => {
    const error = new ResponseDecodeError("The page is unreadable.", {
      operationId: "listOrders",
      path: "orders[].totals.order",
      reason: "text that is not a plain decimal",
      index: 4,
      orderNumber: 100004,
    });
    expect(error.name).toBe("ResponseDecodeError");
    expect(error.message).toBe("The page is unreadable.");
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(isPartnerOrdersError(error)).toBe(true);
    expect(isProblem(error, "")).toBe(false);
    expect([error.operationId, error.path, error.reason, error.index, error.orderNumber]).toEqual([
      "listOrders",
      "orders[].totals.order",
      "text that is not a plain decimal",
      4,
      100004,
    ]);
  });

  it("belong to the family; plain errors and look-alikes do not", () => {
    expect(isPartnerOrdersError(new APITimeoutError())).toBe(true);
    expect(isPartnerOrdersError(new Error("x"))).toBe(false);
    expect(isPartnerOrdersError({ name: "PartnerOrdersError" })).toBe(false);
    expect(errorFromResponse("GET", "/", noHeaders, null)).toBeInstanceOf(APIError);
  });
});

describe("errors of another copy of the package", () => {
  it("an APIError whose class is another copy's is still recognised by its code", () => {
    const error = errorFromResponse("GET", "/v1/x", answer(404), notFound);
    Object.setPrototypeOf(error, class OtherCopyError extends Error {}.prototype);
    expect(error instanceof APIError).toBe(false);
    expect(isProblem(error, "order_not_found")).toBe(true);
  });

  it("an error marked by another copy belongs to the family", () => {
    const other = new Error("x");
    Object.defineProperty(other, Symbol.for("partner-orders.error"), { value: true });
    expect(isPartnerOrdersError(other)).toBe(true);
  });
});

describe("Retry-After", () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);
  const retryAfter = (value: string) => parseRetryAfter(new Headers({ "retry-after": value }), now);

  it("seconds, with spaces around, are read as given", () => {
    expect(retryAfter(" 12 ")).toBe(12);
    expect(retryAfter("0")).toBe(0);
  });

  it("absent, empty or not a number or date, it is null", () => {
    expect(parseRetryAfter(new Headers(), now)).toBeNull();
    expect(retryAfter("  ")).toBeNull();
    expect(retryAfter("12s")).toBeNull();
    expect(retryAfter("-5")).toBeNull();
  });

  it("an IMF date is its distance from now; a past date is 0", () => {
    expect(retryAfter("Thu, 01 Jan 2026 00:00:30 GMT")).toBe(30);
    expect(retryAfter("Wed, 31 Dec 2025 23:59:00 GMT")).toBe(0);
  });

  it("the obsolete RFC 850 and asctime forms are read too", () => {
    expect(retryAfter("Thursday, 01-Jan-26 00:01:00 GMT")).toBe(60);
    expect(retryAfter("Thu Jan  1 00:00:05 2026")).toBe(5);
    expect(retryAfter("Thu Jan 01 00:00:05 2026")).toBe(5);
  });

  it("an RFC 850 two-digit year more than 50 years ahead is in the past century", () => {
    // 76 is 2076, exactly 50 years ahead: kept; 77 would be 2077, so it is 1977, in the past.
    expect(retryAfter("Friday, 01-Jan-76 00:00:00 GMT")).toBe((Date.UTC(2076, 0, 1) - now) / 1000);
    expect(retryAfter("Saturday, 01-Jan-77 00:00:00 GMT")).toBe(0);
  });

  it.each([
    "xThursday, 01-Jan-26 00:01:00 GMT",
    "Thursday, 01-Jan-26 00:01:00 GMTx",
    "xThu Jan  1 00:00:05 2026",
    "Thu Jan  1 00:00:05 20260",
    "Mon, 30 Feb 2026 00:00:00 GMT",
    "Thu, 01 Jan 2026 24:00:00 GMT",
    "Thu, 01 Jan 2026 00:60:00 GMT",
    "Thu, 01 Jan 2026 00:00:60 GMT",
    "Thu, 32 Jan 2026 00:00:00 GMT",
    "Thu, 01 Jan 2026 00:00:30 UTC",
    "xThu, 01 Jan 2026 00:00:30 GMT",
    "Thu, 01 Jan 2026 00:00:30 GMTx",
  ])("a malformed date %j is null", (value) => {
    expect(retryAfter(value)).toBeNull();
  });
});
