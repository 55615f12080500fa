import { describe, expect, expectTypeOf, it } from "vitest";
import {
  APIError,
  BadRequestError,
  ConflictError,
  EdgeFirewallError,
  InternalServerError,
  isProblem,
  NotFoundError,
  PartnerOrdersError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  type SubmissionTimeoutError,
  UnprocessableEntityError,
} from "../../../src/core/errors";
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
