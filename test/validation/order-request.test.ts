import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../../src/core/errors";
import { MAX_BODY_BYTES, validateOrderRequest } from "../../src/core/validation";
import { utf8Length } from "../../src/internal/bytes";
import { address, type Json, line, order } from "./requests";

/** Paths of the violations, for exact comparison. */
const paths = (request: unknown): string[] => validateOrderRequest(request).map((v) => v.path);

const repeat = (char: string, count: number): string => char.repeat(count);

describe("validateOrderRequest: the whole request", () => {
  it("accepts a minimal valid order", () => {
    expect(validateOrderRequest(order())).toEqual([]);
  });

  it("accepts a request that uses every optional field", () => {
    const full = order({
      shipTo: {
        ...address(),
        company: "Acme",
        address2: "Suite 2",
        phone: "+1 555",
        email: "a@b.c",
      },
      lines: [
        line(0, {
          variantId: 3,
          sku: "SKU-1",
          jobName: "Flyers",
          artworkUrl: "https://cdn.example.com/a.pdf",
          templateVariables: { first: "Ada", last: "Lovelace" },
        }),
      ],
    });
    expect(validateOrderRequest(full)).toEqual([]);
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["a number", 42],
    ["a string", "{}"],
    ["an array", [order()]],
    ["a Date", new Date()],
    ["a Map", new Map()],
  ])("refuses %s as the request, at path ''", (_name, value) => {
    const violations = validateOrderRequest(value);
    expect(violations).toHaveLength(1);
    expect(violations[0]?.path).toBe("");
  });

  it("accepts a null-prototype object", () => {
    const request = Object.assign(Object.create(null) as Json, order());
    expect(validateOrderRequest(request)).toEqual([]);
  });

  it("reports every violation at once, each at its path", () => {
    const request = {
      siteId: 0,
      partnerOrderId: "",
      unitPrice: 10,
      lines: [
        { productId: "ABC_1", partnerLineId: "a", quantity: "2", unitPrice: 1, shipTo: address() },
        { productId: "SLS_1", partnerLineId: "a", quantity: 1.5 },
      ],
    };
    expect(paths(request).sort()).toEqual(
      [
        "siteId",
        "partnerOrderId",
        "unitPrice",
        "lines[0].productId",
        "lines[0].quantity",
        "lines[0].unitPrice",
        "lines[1].quantity",
        "lines[1].partnerLineId",
        "lines[1].shipTo",
      ].sort(),
    );
  });

  it("names unitPrice as refused because prices come only from the catalog", () => {
    const violations = validateOrderRequest(order({ lines: [line(0, { unitPrice: 9.99 })] }));
    expect(violations).toEqual([
      {
        path: "lines[0].unitPrice",
        message: "unitPrice is not accepted: prices come only from the catalog",
      },
    ]);
    expect(validateOrderRequest(order({ unitPrice: 1 }))[0]?.message).toBe(
      "unitPrice is not accepted: prices come only from the catalog",
    );
  });

  it("refuses unknown keys at top level, on a line and on a shipTo", () => {
    const request = order({
      note: "x",
      shipTo: { ...address(), floor: 3 },
      lines: [line(0, { colour: "red" })],
    });
    expect(paths(request)).toEqual(["note", "shipTo.floor", "lines[0].colour"]);
  });

  it("reads the request as JSON would send it: an undefined value is absent", () => {
    expect(validateOrderRequest(order({ unitPrice: undefined }))).toEqual([]);
    expect(paths(order({ siteId: undefined }))).toEqual(["siteId"]);
  });

  it("ignores inherited and non-enumerable properties, which JSON never sends", () => {
    const request = order();
    Object.defineProperty(request, "secret", { value: 1, enumerable: false });
    expect(validateOrderRequest(request)).toEqual([]);
  });

  it("does not change the request", () => {
    const request = order({
      lines: [line(0, { templateVariables: JSON.parse('{"__proto__":"x","a":"b"}') as Json })],
    });
    const before = JSON.stringify(request);
    const deepFreeze = (value: unknown): void => {
      if (typeof value !== "object" || value === null) return;
      Object.freeze(value);
      for (const key of Object.keys(value)) deepFreeze((value as Json)[key]);
    };
    deepFreeze(request);
    expect(paths(request)).toEqual(["lines[0].templateVariables.__proto__"]);
    expect(JSON.stringify(request)).toBe(before);
  });
});

describe("validateOrderRequest: hostile inputs give violations, never exceptions", () => {
  it("reports a cyclic request at path ''", () => {
    const request = order();
    request.lines = [line(0, { templateVariables: request })];
    let violations: ReturnType<typeof validateOrderRequest> = [];
    expect(() => {
      violations = validateOrderRequest(request);
    }).not.toThrow();
    expect(violations.map((v) => v.path)).toContain("");
    expect(violations.find((v) => v.path === "")?.message).toMatch(/cyclic/);
  });

  it("reports a request that points to itself through an unknown key", () => {
    const request = order();
    request.self = request;
    expect(paths(request)).toEqual(["self", ""]);
  });

  it("reports a property getter that throws", () => {
    const request = order();
    Object.defineProperty(request, "siteId", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    const violations = validateOrderRequest(request);
    expect(violations.map((v) => v.path)).toEqual([""]);
    expect(violations[0]?.message).toMatch(/could not be read/);
  });

  it("reports a proxy whose traps throw", () => {
    const request = new Proxy(order(), {
      ownKeys() {
        throw new Error("no keys");
      },
    });
    expect(paths(request)).toEqual([""]);
  });

  it("reports a bigint as a wrong type and as unsendable", () => {
    expect(paths(order({ siteId: 7n }))).toEqual(["siteId", ""]);
  });

  it("reports a sparse lines array entry by entry", () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is exactly what is under test
    const lines = [line(0), , line(2)];
    expect(paths(order({ lines }))).toEqual(["lines[1]"]);
  });

  it("does not walk a huge sparse lines array, and calls it too large", () => {
    const sparse: unknown[] = [];
    sparse.length = 1_000_000_000;
    // Counts the entries read: walking the array would read (or probe) a billion of them.
    let reads = 0;
    const lines = new Proxy(sparse, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
      has(target, key) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.has(target, key);
      },
    });
    expect(paths(order({ lines }))).toEqual(["lines", ""]);
    expect(reads).toBeLessThan(1000);
  });

  it.each([
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-Infinity", Number.NEGATIVE_INFINITY],
    ["a string", "7"],
    ["a boolean", true],
    ["an object", { id: 7 }],
  ])("refuses siteId %s", (_name, siteId) => {
    expect(paths(order({ siteId }))).toEqual(["siteId"]);
  });
});

describe("siteId", () => {
  it.each([
    [1, true],
    [Number.MAX_SAFE_INTEGER, true],
    [0, false],
    [-1, false],
    [1.5, false],
    [Number.MAX_SAFE_INTEGER + 1, false],
  ])("%s passes: %s", (siteId, ok) => {
    expect(paths(order({ siteId }))).toEqual(ok ? [] : ["siteId"]);
  });

  it("is required", () => {
    const { siteId: _, ...request } = order();
    expect(paths(request)).toEqual(["siteId"]);
  });
});

describe("partnerOrderId and partnerLineId: 1 to 100 printable ASCII", () => {
  it.each([
    ["1 char", "a", true],
    ["100 chars", repeat("a", 100), true],
    ["all printable ASCII", " ~!#09AZaz", true],
    ["empty", "", false],
    ["101 chars", repeat("a", 101), false],
    ["a tab", "a\tb", false],
    ["DEL (0x7F)", "a\u007f", false],
    ["non-ASCII", "café", false],
    ["a number", 12, false],
  ])("partnerOrderId %s passes: %s", (_name, partnerOrderId, ok) => {
    expect(paths(order({ partnerOrderId }))).toEqual(ok ? [] : ["partnerOrderId"]);
  });

  it("partnerOrderId is required", () => {
    const { partnerOrderId: _, ...request } = order();
    expect(paths(request)).toEqual(["partnerOrderId"]);
  });

  it.each([
    ["100 chars", repeat("b", 100), true],
    ["101 chars", repeat("b", 101), false],
    ["empty", "", false],
    ["a newline", "a\n", false],
  ])("partnerLineId %s passes: %s", (_name, partnerLineId, ok) => {
    const request = order({ lines: [line(0, { partnerLineId })] });
    expect(paths(request)).toEqual(ok ? [] : ["lines[0].partnerLineId"]);
  });

  it("partnerLineId is required", () => {
    expect(paths(order({ lines: [{ productId: "SLO_1", quantity: 1 }] }))).toEqual([
      "lines[0].partnerLineId",
    ]);
  });

  it("reports each duplicate partnerLineId at the repeat, naming the first", () => {
    const lines = [line(0), line(1), { ...line(2), partnerLineId: "line-0" }, line(0)];
    const violations = validateOrderRequest(order({ lines }));
    expect(violations.map((v) => v.path)).toEqual([
      "lines[2].partnerLineId",
      "lines[3].partnerLineId",
    ]);
    expect(violations[0]?.message).toMatch(/lines\[0\]\.partnerLineId/);
  });

  it("treats ids that differ only in case as distinct", () => {
    const lines = [line(0, { partnerLineId: "a" }), line(1, { partnerLineId: "A" })];
    expect(paths(order({ lines }))).toEqual([]);
  });
});

describe("lines: 1 to 100 entries", () => {
  const many = (count: number) => Array.from({ length: count }, (_, i) => line(i));

  it("100 lines pass, 101 fail at lines", () => {
    expect(paths(order({ lines: many(100) }))).toEqual([]);
    expect(paths(order({ lines: many(101) }))).toEqual(["lines"]);
  });

  it("1 line passes, 0 fail at lines", () => {
    expect(paths(order({ lines: many(1) }))).toEqual([]);
    expect(paths(order({ lines: [] }))).toEqual(["lines"]);
  });

  it("lines is required and must be an array", () => {
    const { lines: _, ...request } = order();
    expect(paths(request)).toEqual(["lines"]);
    expect(paths(order({ lines: { 0: line() } }))).toEqual(["lines"]);
  });

  it.each([
    ["null", null],
    ["a string", "line"],
    ["an array", [line()]],
  ])("a line that is %s is refused at its index", (_name, entry) => {
    expect(paths(order({ lines: [line(0), entry] }))).toEqual(["lines[1]"]);
  });
});

describe("line fields", () => {
  const linePaths = (extra: Json) => paths(order({ lines: [line(0, extra)] }));

  it.each([
    ["SLO_1", true],
    ["SLS_123456789012345678", true],
    ["SLX_1", false],
    ["SLO_", false],
    ["SLO_1234567890123456789", false],
    ["slo_1", false],
    ["SLO_12a", false],
    [" SLO_1", false],
    ["SLO_1\n", false],
    [123, false],
  ])("productId %s passes: %s", (productId, ok) => {
    expect(linePaths({ productId })).toEqual(ok ? [] : ["lines[0].productId"]);
  });

  it("productId is required", () => {
    expect(paths(order({ lines: [{ partnerLineId: "a", quantity: 1 }] }))).toEqual([
      "lines[0].productId",
    ]);
  });

  it.each([
    [1, true],
    [1_000_000, true],
    [0, false],
    [-2, false],
    [2.5, false],
    ["2", false],
    [Number.NaN, false],
    [null, false],
  ])("quantity %s passes: %s", (quantity, ok) => {
    expect(linePaths({ quantity })).toEqual(ok ? [] : ["lines[0].quantity"]);
  });

  it("quantity is required", () => {
    expect(paths(order({ lines: [{ productId: "SLO_1", partnerLineId: "a" }] }))).toEqual([
      "lines[0].quantity",
    ]);
  });

  it.each([
    [1, true],
    [null, true],
    [0, false],
    [1.5, false],
    ["3", false],
  ])("variantId %s passes: %s", (variantId, ok) => {
    expect(linePaths({ variantId })).toEqual(ok ? [] : ["lines[0].variantId"]);
  });

  it("variantId may be left out (STOCK vs POD is the service's rule)", () => {
    expect(linePaths({})).toEqual([]);
  });

  it.each([
    ["sku", 100],
    ["jobName", 200],
    ["artworkUrl", 2000],
  ])("%s of %i characters passes, one more fails", (field, max) => {
    expect(linePaths({ [field]: repeat("x", max) })).toEqual([]);
    expect(linePaths({ [field]: repeat("x", max + 1) })).toEqual([`lines[0].${field}`]);
    expect(linePaths({ [field]: 5 })).toEqual([`lines[0].${field}`]);
  });

  it("counts length in code points, so an emoji is one character", () => {
    expect(linePaths({ sku: repeat("😀", 100) })).toEqual([]);
    expect(linePaths({ sku: repeat("😀", 101) })).toEqual(["lines[0].sku"]);
  });
});

describe("templateVariables", () => {
  const vars = (value: unknown) => paths(order({ lines: [line(0, { templateVariables: value })] }));
  const entries = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]));

  it("50 entries pass, 51 fail at templateVariables", () => {
    expect(vars(entries(50))).toEqual([]);
    expect(vars(entries(51))).toEqual(["lines[0].templateVariables"]);
  });

  it("an empty object passes", () => {
    expect(vars({})).toEqual([]);
  });

  it("a key of 100 characters passes, 101 fails at the key", () => {
    const key100 = repeat("k", 100);
    const key101 = repeat("k", 101);
    expect(vars({ [key100]: "v" })).toEqual([]);
    expect(vars({ [key101]: "v" })).toEqual([`lines[0].templateVariables.${key101}`]);
  });

  it("a value of 2000 characters passes, 2001 fails at the key", () => {
    expect(vars({ a: repeat("v", 2000) })).toEqual([]);
    expect(vars({ a: repeat("v", 2001) })).toEqual(["lines[0].templateVariables.a"]);
  });

  it.each([
    ["a number", 1],
    ["null", null],
    ["an object", { nested: "x" }],
  ])("a value that is %s fails", (_name, value) => {
    expect(vars({ a: value })).toEqual(["lines[0].templateVariables.a"]);
  });

  it.each([
    ["an array", ["a"]],
    ["a string", "a=b"],
    ["null", null],
  ])("templateVariables that is %s fails", (_name, value) => {
    expect(vars(value)).toEqual(["lines[0].templateVariables"]);
  });

  it("catches an own __proto__ key made by JSON.parse", () => {
    const parsed = JSON.parse('{"__proto__": "x", "ok": "y"}') as Json;
    expect(vars(parsed)).toEqual(["lines[0].templateVariables.__proto__"]);
  });

  it("catches __proto__ in a whole request parsed from JSON", () => {
    const text = JSON.stringify(order({ lines: [line(0, { templateVariables: { a: "b" } })] }));
    const request = JSON.parse(
      text.replace('"templateVariables":{', '"templateVariables":{"__proto__":"x",'),
    ) as unknown;
    expect(paths(request)).toEqual(["lines[0].templateVariables.__proto__"]);
  });

  it.each(["constructor", "prototype"])("refuses the key %s", (key) => {
    expect(vars({ [key]: "x" })).toEqual([`lines[0].templateVariables.${key}`]);
  });

  it("an object literal's __proto__ sets a prototype, so the object is not plain", () => {
    expect(vars({ __proto__: { a: "b" } })).toEqual(["lines[0].templateVariables"]);
  });

  it("quotes a key that is not an identifier in the path", () => {
    expect(vars({ "first name": repeat("v", 2001) })).toEqual([
      'lines[0].templateVariables["first name"]',
    ]);
  });
});

describe("shipTo placement: exactly one", () => {
  const lineWithShipTo = (i: number) => line(i, { shipTo: address() });

  it("a shipTo on every line and none on the order passes", () => {
    const { shipTo: _, ...request } = order({ lines: [lineWithShipTo(0), lineWithShipTo(1)] });
    expect(paths(request)).toEqual([]);
  });

  it("both placements fail, at each line's shipTo", () => {
    const request = order({ lines: [lineWithShipTo(0), line(1), lineWithShipTo(2)] });
    expect(paths(request)).toEqual(["lines[0].shipTo", "lines[2].shipTo"]);
  });

  it("neither placement fails, at shipTo", () => {
    const { shipTo: _, ...request } = order({ lines: [line(0), line(1)] });
    expect(paths(request)).toEqual(["shipTo"]);
  });

  it("a shipTo on only some lines fails, at each line without one", () => {
    const { shipTo: _, ...request } = order({
      lines: [lineWithShipTo(0), line(1), lineWithShipTo(2), line(3)],
    });
    expect(paths(request)).toEqual(["lines[1].shipTo", "lines[3].shipTo"]);
  });

  it("a null shipTo is given but not an object", () => {
    expect(paths(order({ shipTo: null }))).toEqual(["shipTo"]);
  });
});

describe("shipTo fields", () => {
  const orderShipTo = (shipTo: Json) => paths(order({ shipTo }));

  it.each(["name", "address1", "city", "state", "postalCode", "country"])(
    "%s is required (the minimal shape)",
    (field) => {
      const shipTo = address();
      delete shipTo[field];
      expect(orderShipTo(shipTo)).toEqual([`shipTo.${field}`]);
    },
  );

  it("every missing field of the minimal shape is reported at once", () => {
    expect(orderShipTo({})).toEqual([
      "shipTo.name",
      "shipTo.address1",
      "shipTo.city",
      "shipTo.state",
      "shipTo.postalCode",
      "shipTo.country",
    ]);
  });

  it.each([
    ["name", 200],
    ["company", 200],
    ["address1", 200],
    ["address2", 200],
    ["city", 200],
    ["state", 100],
    ["postalCode", 20],
    ["phone", 40],
    ["email", 254],
  ])("%s of %i characters passes, one more fails", (field, max) => {
    expect(orderShipTo({ ...address(), [field]: repeat("a", max) })).toEqual([]);
    expect(orderShipTo({ ...address(), [field]: repeat("a", max + 1) })).toEqual([
      `shipTo.${field}`,
    ]);
  });

  it.each([
    ["US", true],
    ["gb", true],
    ["USA", false],
    ["U", false],
    ["", false],
    ["1A", false],
    ["ÜS", false],
    [840, false],
  ])("country %s passes: %s", (country, ok) => {
    expect(orderShipTo({ ...address(), country })).toEqual(ok ? [] : ["shipTo.country"]);
  });

  it("a field of the wrong type is a violation", () => {
    expect(orderShipTo({ ...address(), postalCode: 62701, phone: null })).toEqual([
      "shipTo.postalCode",
      "shipTo.phone",
    ]);
  });

  it("email is accepted on the order-level shipTo", () => {
    expect(orderShipTo({ ...address(), email: "ship@example.com" })).toEqual([]);
  });

  it("email on a line-level shipTo fails at lines[i].shipTo.email", () => {
    const { shipTo: _, ...request } = order({
      lines: [
        line(0, { shipTo: address() }),
        line(1, { shipTo: { ...address(), email: "a@b.c" } }),
      ],
    });
    expect(paths(request)).toEqual(["lines[1].shipTo.email"]);
  });

  it("a line-level shipTo is checked like the order-level one", () => {
    const { shipTo: _, ...request } = order({
      lines: [line(0, { shipTo: { ...address(), country: "USA", unitPrice: 1 } })],
    });
    expect(paths(request)).toEqual(["lines[0].shipTo.unitPrice", "lines[0].shipTo.country"]);
  });
});

describe("body size: at most 262,144 UTF-8 bytes", () => {
  /**
   * A valid request whose JSON is exactly `target` bytes, made of templateVariables filled with
   * `fill` (1 to 3 bytes a character) and topped up with ASCII to the exact byte.
   */
  function requestOfSize(target: number, fill = "x"): Json {
    const width = utf8Length(fill);
    const lines: Json[] = [];
    const request = order({ lines });
    const size = () => utf8Length(JSON.stringify(request));
    let last: { variables: Record<string, string>; key: string } | undefined;
    // Before adding a line or an entry, leave room for its own JSON by shortening the last value.
    const makeRoom = () => {
      if (last && target - size() < 200) {
        last.variables[last.key] = (last.variables[last.key] ?? "").slice(0, -200);
      }
    };
    for (let i = 0; size() < target; i++) {
      makeRoom();
      const variables: Record<string, string> = {};
      lines.push(line(i, { templateVariables: variables }));
      for (let k = 0; k < 50 && size() < target; k++) {
        makeRoom();
        const key = `k${k}`;
        variables[key] = "";
        const room = target - size();
        const count = Math.min(2000, Math.floor(room / width));
        const rest = Math.min(2000 - count, room - count * width);
        variables[key] = fill.repeat(count) + "x".repeat(rest);
        last = { variables, key };
      }
    }
    expect(size()).toBe(target);
    return request;
  }

  it("a body of exactly the limit passes", () => {
    expect(validateOrderRequest(requestOfSize(MAX_BODY_BYTES))).toEqual([]);
  });

  it("a body one byte over fails at path ''", () => {
    const violations = validateOrderRequest(requestOfSize(MAX_BODY_BYTES + 1));
    expect(violations.map((v) => v.path)).toEqual([""]);
    expect(violations[0]?.message).toMatch(/262145 bytes/);
  });

  it("counts UTF-8 bytes, not characters", () => {
    // "€" is 3 bytes: the JSON has far fewer characters than bytes.
    const request = requestOfSize(MAX_BODY_BYTES - 1, "€");
    expect(JSON.stringify(request).length).toBeLessThan(MAX_BODY_BYTES / 2);
    const lines = request.lines as Json[];
    lines.push(line(lines.length, { sku: "€" }));
    expect(paths(request)).toEqual([""]);
  });
});

describe("RequestValidationError from validateOrderRequest", () => {
  it("carries every violation, and says nothing was sent", () => {
    const violations = validateOrderRequest(order({ siteId: -1, partnerOrderId: "" }));
    const thrown: unknown = new RequestValidationError(violations, "order request");
    expect(thrown).toBeInstanceOf(RequestValidationError);
    const error = thrown as RequestValidationError;
    expect(error.violations.map((v) => v.path)).toEqual(["siteId", "partnerOrderId"]);
    expect(error.message).toMatch(/^Invalid order request; nothing was sent/);
  });
});
