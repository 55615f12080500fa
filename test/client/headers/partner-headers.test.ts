import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../../../src/core/errors";
import { headerViolations, mergeHeaders, resolveHeaders } from "../../../src/core/headers";

describe("headers given by the partner", () => {
  it("none given is no violation", () => {
    expect(headerViolations(undefined, "headers")).toEqual([]);
  });

  it.each([null, "x-a: 1", 3, [["x-a", "1"]]])("%j is refused as a whole, not read", (headers) => {
    expect(headerViolations(headers, "headers")).toEqual([
      { path: "headers", message: "must map header names to strings" },
    ]);
  });

  it("Authorization is refused with a pointer to accessToken; Accept and Content-Type without", () => {
    expect(
      headerViolations({ AUTHORIZATION: "a", Accept: "b", "content-type": "c" }, "headers"),
    ).toEqual([
      {
        path: 'headers["AUTHORIZATION"]',
        message:
          "cannot be set: the SDK sets it from the credential (pass { accessToken } for your own)",
      },
      { path: 'headers["Accept"]', message: "cannot be set: the SDK sets it" },
      { path: 'headers["content-type"]', message: "cannot be set: the SDK sets it" },
    ]);
  });

  it("a value that is not a string, or a name HTTP cannot carry, is named with its path", () => {
    expect(headerViolations({ "x-n": 1, "Bad Name": "x", "x-ok": "fine" }, "h")).toEqual([
      { path: 'h["x-n"]', message: "is not a valid header with a string value" },
      { path: 'h["Bad Name"]', message: "is not a valid header with a string value" },
    ]);
  });

  it("defaultHeaders are kept with lower-case names", () => {
    expect(resolveHeaders({ "X-Trace": "1", "x-other": "2" })).toEqual({
      "x-trace": "1",
      "x-other": "2",
    });
    expect(resolveHeaders(undefined)).toEqual({});
  });

  it("bad defaultHeaders throw a RequestValidationError about the client options", () => {
    let error: unknown;
    try {
      resolveHeaders({ Accept: "text/plain" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).violations).toEqual([
      { path: 'defaultHeaders["Accept"]', message: "cannot be set: the SDK sets it" },
    ]);
    expect((error as Error).message).toContain("client options");
  });

  it("a call's header replaces the default of the same name whatever its case, defaults untouched", () => {
    const defaults = { "x-a": "default", "x-b": "kept" };
    expect(mergeHeaders(defaults, { "X-A": "call" })).toEqual({ "x-a": "call", "x-b": "kept" });
    expect(defaults).toEqual({ "x-a": "default", "x-b": "kept" });
    expect(mergeHeaders(defaults, undefined)).toEqual(defaults);
  });
});
