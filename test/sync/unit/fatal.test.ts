import { describe, expect, it } from "vitest";
import { APIError } from "../../../src/core/errors";
import { MirrorError, StoreLockedError, SweepHeldError } from "../../../src/sync/errors";
import { fatalError } from "../../../src/sync/fatal";

function apiError(status: number, code?: string): APIError {
  return new APIError({
    status,
    method: "GET",
    path: "/v1/orders",
    headers: new Headers(),
    problem: code ? ({ code, title: "t", status } as never) : undefined,
    message: `status ${status}`,
  });
}

describe("fatalError", () => {
  it("a fatal mirror error is returned as it is", () => {
    const error = new StoreLockedError("/m.db", 7, "box");
    expect(fatalError(error)).toBe(error);
  });

  it("a mirror error a retry may mend is not fatal", () => {
    expect(fatalError(new SweepHeldError("h/1/x", null))).toBeUndefined();
    expect(fatalError(new MirrorError("store_unavailable", "away"))).toBeUndefined();
  });

  it("a refused credential stops the mirror with its code, message and hint", () => {
    const cause = apiError(403, "insufficient_scope");
    const error = fatalError(cause);
    expect(error).toBeInstanceOf(MirrorError);
    expect(error?.code).toBe("insufficient_scope");
    expect(error?.cause).toBe(cause);
    expect(error?.hint).toMatch(/^the credential lacks the scope/);
    expect(error?.message).toBe(`The mirror stops: status 403 ${error?.hint}`);
  });

  it("the mirror error it made stays fatal when a batch of reads throws it again", () => {
    const stop = fatalError(apiError(401, "invalid_token")) as MirrorError;
    expect(fatalError(stop)).toBe(stop);
  });

  it("a mirror error caused by a transient failure is not fatal", () => {
    const refused = new MirrorError("cursor_refused", "refused", {
      cause: apiError(400, "invalid_cursor"),
    });
    expect(fatalError(refused)).toBeUndefined();
  });

  it("a transient failure is not fatal", () => {
    expect(fatalError(apiError(503))).toBeUndefined();
    expect(fatalError(new Error("boom"))).toBeUndefined();
  });
});
