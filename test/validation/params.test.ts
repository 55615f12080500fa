import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../../src/core/errors";
import {
  checkCursor,
  checkLimit,
  checkOrderNumber,
  checkProductId,
  checkQuantity,
  checkServiceType,
  checkSiteId,
  checkSubmissionId,
  checkSubmissionStatus,
} from "../../src/core/validation";

/** Values that must never become part of a URL, whatever the parameter. */
const hostile: unknown[] = [
  "../x",
  "https://evil",
  "//evil.example",
  "1/../2",
  "1?x=2",
  "1#frag",
  "%2e%2e",
  "-1",
  "0",
  "1.5",
  "NaN",
  "12abc",
  " 12",
  "",
  -1,
  0,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  null,
  undefined,
  {},
  [1],
  true,
];

describe.each([
  ["checkSiteId", checkSiteId, "siteId"],
  ["checkQuantity", checkQuantity, "quantity"],
  ["checkLimit", (value: unknown, path?: string) => checkLimit(value, path), "limit"],
])("%s: a positive safe integer", (_name, check, defaultPath) => {
  it.each([1, 2, 500, Number.MAX_SAFE_INTEGER])("accepts %s", (value) => {
    expect(check(value)).toEqual([]);
  });

  it.each(hostile)("refuses %s at its path", (value) => {
    const violations = check(value);
    expect(violations).toHaveLength(1);
    expect(violations[0]?.path).toBe(defaultPath);
  });

  it("refuses digit strings: only orderNumber takes those", () => {
    expect(check("12")).toHaveLength(1);
  });

  it("refuses an unsafe integer", () => {
    expect(check(Number.MAX_SAFE_INTEGER + 1)).toHaveLength(1);
  });

  it("reports at the path it is given", () => {
    expect(check(0, "options.x")).toEqual([{ path: "options.x", message: expect.any(String) }]);
  });
});

describe("checkLimit with a maximum", () => {
  it("accepts the maximum and refuses one above (the submissions list rejects above 100)", () => {
    expect(checkLimit(100, "limit", 100)).toEqual([]);
    expect(checkLimit(101, "limit", 100)).toEqual([
      { path: "limit", message: "must be at most 100, got 101" },
    ]);
  });
});

describe("checkOrderNumber: a positive safe integer, or its canonical digits", () => {
  it.each([1, 42, Number.MAX_SAFE_INTEGER, "1", "42", "9007199254740991"])(
    "accepts %s",
    (value) => {
      expect(checkOrderNumber(value)).toEqual([]);
    },
  );

  it.each([
    ...hostile,
    "012",
    "+12",
    "1e3",
    "0x10",
    "12 ",
    "9007199254740992",
    Number.MAX_SAFE_INTEGER + 1,
  ])("refuses %s at orderNumber", (value) => {
    const violations = checkOrderNumber(value);
    expect(violations).toHaveLength(1);
    expect(violations[0]?.path).toBe("orderNumber");
  });
});

describe("checkProductId: SLO_ or SLS_ plus 1 to 18 digits", () => {
  it.each(["SLO_1", "SLS_123456789012345678"])("accepts %s", (value) => {
    expect(checkProductId(value)).toEqual([]);
  });

  it.each([
    ...hostile,
    "SLO_../x",
    "SLO_1/../2",
    "SLO_1234567890123456789",
    "SLO_",
    "SLX_1",
    "slo_1",
    "SLO_1\n",
    "SLO_1%2F",
  ])("refuses %s at productId", (value) => {
    expect(checkProductId(value)).toEqual([{ path: "productId", message: expect.any(String) }]);
  });
});

describe("checkSubmissionId: a well-formed UUID", () => {
  it.each(["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"])(
    "accepts %s",
    (value) => {
      expect(checkSubmissionId(value)).toEqual([]);
    },
  );

  it.each([
    ...hostile,
    "123e4567e89b12d3a456426614174000",
    "123e4567-e89b-12d3-a456-42661417400",
    "123e4567-e89b-12d3-a456-4266141740000",
    "g23e4567-e89b-12d3-a456-426614174000",
    "{123e4567-e89b-12d3-a456-426614174000}",
    "123e4567-e89b-12d3-a456-426614174000/../x",
    " 123e4567-e89b-12d3-a456-426614174000",
  ])("refuses %s at submissionId", (value) => {
    expect(checkSubmissionId(value)).toEqual([
      { path: "submissionId", message: expect.any(String) },
    ]);
  });
});

describe("checkServiceType", () => {
  it.each(["STOCK", "POD"])("accepts %s", (value) => {
    expect(checkServiceType(value)).toEqual([]);
  });

  it.each(["stock", "pod", "", "STOCK ", "https://evil", null, 1])("refuses %s", (value) => {
    expect(checkServiceType(value)).toEqual([
      { path: "serviceType", message: "must be STOCK or POD" },
    ]);
  });
});

describe("checkSubmissionStatus", () => {
  it.each(["queued", "processing", "completed", "failed"])("accepts %s", (value) => {
    expect(checkSubmissionStatus(value)).toEqual([]);
  });

  it.each(["QUEUED", "done", "", "../x", null, 0])("refuses %s", (value) => {
    expect(checkSubmissionStatus(value)).toEqual([
      { path: "status", message: "must be queued, processing, completed or failed" },
    ]);
  });
});

describe("checkCursor: opaque, so only a non-empty string", () => {
  it.each(["abc", "eyJwIjoxfQ==", "../x"])("accepts %s without parsing it", (value) => {
    expect(checkCursor(value)).toEqual([]);
  });

  it.each(["", null, undefined, 12, {}])("refuses %s", (value) => {
    expect(checkCursor(value)).toEqual([{ path: "cursor", message: expect.any(String) }]);
  });
});

describe("RequestValidationError from the checks", () => {
  it("carries the violations and names each argument in its message", () => {
    const violations = [...checkOrderNumber("../x"), ...checkLimit(0)];
    const thrown: unknown = new RequestValidationError(violations, "orders.get arguments");
    expect(thrown).toBeInstanceOf(RequestValidationError);
    expect((thrown as RequestValidationError).violations).toEqual(violations);
    expect((thrown as Error).message).toContain("orderNumber");
    expect((thrown as Error).message).toContain("limit");
  });
});

describe("what a refused argument says", () => {
  it("an order number that is not canonical digits says what is accepted", () => {
    expect(checkOrderNumber("012")).toEqual([
      { path: "orderNumber", message: "must be a positive integer, or a string of its digits" },
    ]);
  });

  it("an order number of digits past 2^53 - 1 says that the SDK cannot carry it exactly", () => {
    expect(checkOrderNumber("9007199254740992")).toEqual([
      {
        path: "orderNumber",
        message: "is above 9007199254740991 (2^53 - 1), which the SDK does not carry exactly",
      },
    ]);
  });

  it("a productId says the documented format", () => {
    expect(checkProductId("SLX_1")).toEqual([
      { path: "productId", message: "must be SLO_ or SLS_ followed by 1 to 18 digits" },
    ]);
  });

  it("a submissionId says it must be a UUID", () => {
    expect(checkSubmissionId("not-a-uuid")).toEqual([
      { path: "submissionId", message: "must be a UUID (8-4-4-4-12 hexadecimal digits)" },
    ]);
  });

  it("a cursor says what was given instead of a non-empty string, without echoing it", () => {
    expect(checkCursor("")).toEqual([
      { path: "cursor", message: "must be a non-empty string, got a string" },
    ]);
    expect(checkCursor(12)).toEqual([
      { path: "cursor", message: "must be a non-empty string, got 12" },
    ]);
  });

  it("a limit below 1 says it must be a positive integer", () => {
    expect(checkLimit(0)).toEqual([
      { path: "limit", message: "must be a positive integer, got 0" },
    ]);
  });

  it("without a maximum, any positive safe limit is left to the service to cap", () => {
    expect(checkLimit(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });
});

describe("values that only read like a valid id are refused", () => {
  // An array or an object with its own toString turns into the id's text when put in a URL: the
  // value itself must be a string, or a caller's bug would address a real resource.
  const disguised = (text: string) => [[text], { toString: () => text }];

  it.each(disguised("SLO_1"))("productId %j", (value) => {
    expect(checkProductId(value)).toEqual([
      { path: "productId", message: "must be SLO_ or SLS_ followed by 1 to 18 digits" },
    ]);
  });

  it.each(disguised("123e4567-e89b-12d3-a456-426614174000"))("submissionId %j", (value) => {
    expect(checkSubmissionId(value)).toEqual([
      { path: "submissionId", message: "must be a UUID (8-4-4-4-12 hexadecimal digits)" },
    ]);
  });

  it.each(disguised("12"))("orderNumber %j", (value) => {
    expect(checkOrderNumber(value)).toHaveLength(1);
  });
});
