// @ts-nocheck
// Proves spec/openapi.yaml covers the API document: every endpoint, every catalog code with its
// status, every row of the Limits table and every webhook event type. The document is read at test
// time, so a new endpoint, code, limit or event type there fails here until the spec follows.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const apiDocument = readFileSync(
  path.resolve(repoRoot, "../shared/api/partner-order-service-v1.md"),
  "utf8",
);
const spec: Json = parse(readFileSync(path.join(repoRoot, "spec/openapi.yaml"), "utf8"));

type Json = Record<string, unknown>;
const METHODS = ["get", "put", "post", "delete", "patch"] as const;

// ---------------------------------------------------------------------------------------------
// Reading the document
// ---------------------------------------------------------------------------------------------

/** The text under a heading, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const lines = apiDocument.split("\n");
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`heading not found in the API document: ${heading}`);
  const level = heading.indexOf(" ");
  const end = lines.findIndex(
    (line, i) => i > start && /^#+ /.test(line) && line.indexOf(" ") <= level,
  );
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** The body rows of the first Markdown table in `text`, as trimmed cells. */
function tableRows(text: string): string[][] {
  const rows = text
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) =>
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
  return rows.slice(2); // header and separator
}

const unquote = (cell: string) => cell.replaceAll("`", "");

// ---------------------------------------------------------------------------------------------
// Reading the spec
// ---------------------------------------------------------------------------------------------

function deref(node: unknown): unknown {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
    if (hops > 20) throw new Error("$ref chain too long");
    current = current.$ref
      .slice(2)
      .split("/")
      .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), spec);
  }
  return current;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Walks `where` from the spec root, following $refs at every step. A segment `@name` picks the
 * element of an array (parameters) whose `name` is `name`; a number indexes an array.
 */
function at(where: readonly string[]): unknown {
  let node: unknown = spec;
  for (const segment of where) {
    node = deref(node);
    if (segment.startsWith("@") && Array.isArray(node)) {
      node = node.map(deref).find((p) => isObject(p) && p.name === segment.slice(1));
    } else if (Array.isArray(node)) {
      node = node[Number(segment)];
    } else {
      node = isObject(node) ? node[segment] : undefined;
    }
  }
  return deref(node);
}

interface SpecOperation {
  path: string;
  method: string;
  operation: Json;
}

const operations: SpecOperation[] = Object.entries(spec.paths as Json).flatMap(([p, item]) =>
  METHODS.filter((m) => isObject((item as Json)[m])).map((method) => ({
    path: p,
    method,
    operation: (item as Json)[method] as Json,
  })),
);

const operationById = (id: string) => operations.find((o) => o.operation.operationId === id);

/** Every [status, code] pair the spec declares through `x-codes`, per operation. */
function codesOf(operation: Json): [status: string, code: string][] {
  return Object.entries((operation.responses ?? {}) as Json).flatMap(([status, response]) => {
    const codes = (deref(response) as Json)["x-codes"];
    return Array.isArray(codes)
      ? codes.map((code): [string, string] => [status, String(code)])
      : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Endpoints and operationIds
// ---------------------------------------------------------------------------------------------

const documentedEndpoints = [
  ...apiDocument.matchAll(/^### (GET|POST|PUT|PATCH|DELETE) (\/\S+)/gm),
].map((m) => [m[1] as string, m[2] as string] as const);

describe("endpoints of the API document", () => {
  it("are found in the document", () => {
    expect(documentedEndpoints.length).toBeGreaterThanOrEqual(15);
  });

  it.each(documentedEndpoints)("%s %s exists in the spec", (method, endpoint) => {
    const item = (spec.paths as Json)[endpoint];
    expect(item, `path ${endpoint} is missing`).toBeDefined();
    expect((item as Json)[method.toLowerCase()], `${method} ${endpoint} is missing`).toBeDefined();
  });

  it("and no other operation exists in the spec", () => {
    const documented = documentedEndpoints.map(([m, p]) => `${m} ${p}`).sort();
    const specified = operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();
    expect(specified).toEqual(documented);
  });
});

const operationIds = [
  ["createToken", "POST /oauth2/token"],
  ["ping", "GET /v1/ping"],
  ["mcp", "POST /v1/mcp"],
  ["getMe", "GET /v1/me"],
  ["listSites", "GET /v1/sites"],
  ["listOrders", "GET /v1/orders"],
  ["getOrder", "GET /v1/orders/{orderNumber}"],
  ["listOrderItems", "GET /v1/orders/{orderNumber}/items"],
  ["listOrderShipments", "GET /v1/orders/{orderNumber}/shipments"],
  ["submitOrder", "POST /v1/orders"],
  ["listSubmissions", "GET /v1/orders/submissions"],
  ["getSubmission", "GET /v1/orders/submissions/{submissionId}"],
  ["listProducts", "GET /v1/products"],
  ["getProduct", "GET /v1/products/{productId}"],
  ["quoteProduct", "POST /v1/products/{productId}/quote"],
] as const;

describe("operationIds", () => {
  it.each(operationIds)("%s is %s", (id, endpoint) => {
    const found = operationById(id);
    expect(found, `operationId ${id} is missing`).toBeDefined();
    expect(`${found?.method.toUpperCase()} ${found?.path}`).toBe(endpoint);
  });
});

// ---------------------------------------------------------------------------------------------
// Error codes
// ---------------------------------------------------------------------------------------------

const catalog = tableRows(section("### Code catalog (complete published set)")).map(
  ([code, status]) => [unquote(code ?? ""), status ?? ""] as const,
);
const catalogStatus = new Map(catalog);
const specCodes = operations.flatMap((o) =>
  codesOf(o.operation).map(([status, code]) => ({ id: o.operation.operationId, status, code })),
);

describe("code catalog", () => {
  it("is found in the document", () => {
    expect(catalog.length).toBeGreaterThanOrEqual(21);
  });

  it.each(catalog)("%s is declared with status %s", (code, status) => {
    const statuses = specCodes.filter((c) => c.code === code).map((c) => c.status);
    expect(statuses, `${code} is in no x-codes`).not.toHaveLength(0);
    expect(new Set(statuses), `${code} is declared under another status`).toEqual(
      new Set([status]),
    );
  });

  it.each(specCodes)("$id declares $code under $status as the catalog does", (c) => {
    expect(catalogStatus.get(c.code), `${c.code} is not in the code catalog`).toBe(c.status);
  });

  // Every endpoint section names its codes in backticks ("Errors: 400 `invalid_cursor`, ...").
  const endpointCodes = documentedEndpoints.flatMap(([method, endpoint]) => {
    const heading = apiDocument.match(
      new RegExp(`^### ${method} ${endpoint.replace(/[{}]/g, "\\$&")}(\\s.*)?$`, "m"),
    )?.[0];
    const text = heading ? section(heading.trim()) : "";
    const named = [...text.matchAll(/`([a-z_]+)`/g)]
      .map((m) => m[1] as string)
      .filter((code) => catalogStatus.has(code));
    return [...new Set(named)].map((code) => [method, endpoint, code] as const);
  });

  it.each(endpointCodes)("%s %s can answer %s", (method, endpoint, code) => {
    const found = operations.find((o) => o.path === endpoint && o.method === method.toLowerCase());
    const codes = codesOf(found?.operation ?? {});
    expect(codes, `${method} ${endpoint} lacks ${code}`).toContainEqual([
      catalogStatus.get(code),
      code,
    ]);
  });

  // Authentication, rate limits and server failures apply to every authenticated operation.
  const authenticated = operations.filter((o) => {
    const security = (o.operation.security ?? spec.security) as Json[];
    return !security.some((requirement) => Object.keys(requirement).length === 0);
  });
  const everywhere = [
    ["401", "invalid_token"],
    ["429", "rate_limit_exceeded"],
    ["500", "internal_error"],
    ["503", "service_unavailable"],
  ] as const;
  const cases = authenticated.flatMap((o) =>
    everywhere.map(([status, code]) => [String(o.operation.operationId), status, code] as const),
  );

  it.each(cases)("%s answers %s %s", (id, status, code) => {
    expect(codesOf(operationById(id)?.operation ?? {})).toContainEqual([status, code]);
  });

  it.each(authenticated.map((o) => String(o.operation.operationId)))(
    "%s sends Retry-After on 429",
    (id) => {
      const header = at(["paths", ...pathOf(id), "responses", "429", "headers", "Retry-After"]);
      expect(header, `${id}: 429 without Retry-After`).toMatchObject({ required: true });
    },
  );

  // The edge firewall can answer any call on the API host, the token endpoint included, with a
  // 403 that has no body (API document, Errors rule 2): no operation may require a 403 body.
  it.each(operations.map((o) => String(o.operation.operationId)))(
    "%s describes the edge firewall's bodiless 403",
    (id) => {
      const forbidden = at(["paths", ...pathOf(id), "responses", "403"]) as Json;
      expect(forbidden, `${id}: no 403 declared`).toBeDefined();
      expect(String(forbidden.description)).toMatch(/edge firewall/i);
      expect(forbidden["x-edge-firewall"]).toBe(true);
      if (forbidden.content !== undefined) {
        // A problem-document 403 (insufficient_scope) must still allow the bodiless one.
        expect(forbidden["x-body-optional"], `${id}: 403 body declared as always present`).toBe(
          true,
        );
        expect(String(forbidden.description)).toMatch(/body is absent/);
      }
    },
  );
});

describe("POST /v1/mcp", () => {
  // MCP Streamable HTTP: a POST whose Accept lacks application/json or text/event-stream is 406.
  it("declares the transport's 406 for a missing Accept: application/json, text/event-stream", () => {
    const notAcceptable = at(["paths", ...pathOf("mcp"), "responses", "406"]) as Json;
    expect(notAcceptable, "406 is missing").toBeDefined();
    expect(String(notAcceptable.description)).toMatch(/application\/json.*text\/event-stream/s);
    expect(
      at(["paths", ...pathOf("mcp"), "responses", "406", "content", "application/json"]),
    ).toBeDefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Money and decimals: a spec-driven mock serves each field's example, so every one has a
// realistic example that its own schema accepts (never the placeholder "string").
// ---------------------------------------------------------------------------------------------

/** [schema.property, property schema] for every x-money / x-decimal property of the components. */
function decimalFields(): [string, Json][] {
  const found: [string, Json][] = [];
  const visit = (name: string, node: unknown) => {
    if (!isObject(node)) return;
    for (const [key, prop] of Object.entries((node.properties ?? {}) as Json)) {
      if (!isObject(prop)) continue;
      if (prop["x-money"] === true || prop["x-decimal"] === true)
        found.push([`${name}.${key}`, prop]);
      visit(`${name}.${key}`, prop);
    }
    if (isObject(node.items)) visit(`${name}[]`, node.items);
  };
  for (const [name, schema] of Object.entries((spec.components as Json).schemas as Json))
    visit(name, schema);
  return found;
}

describe("money and decimal fields", () => {
  const fields = decimalFields();
  it("are found in the spec", () => {
    expect(fields.length).toBeGreaterThanOrEqual(12);
  });

  it.each(fields)("%s has examples its own schema accepts", (_name, prop) => {
    const examples = prop.examples as unknown[];
    expect(Array.isArray(examples) && examples.length > 0, "no examples").toBe(true);
    const types = [prop.type].flat();
    for (const example of examples) {
      if (types.includes("number")) {
        expect(typeof example).toBe("number");
        continue;
      }
      expect(typeof example).toBe("string");
      expect(example).not.toBe("string");
      expect(example).toMatch(new RegExp(String(prop.pattern)));
    }
  });

  // "Each is a decimal amount encoded as a string (10 fractional digits ...)" (API document,
  // OrderTotals): the pattern says so, so a mock or a validator holds the service to it.
  it.each(["item", "shipping", "tax", "order"])(
    "OrderTotals.%s is text with exactly 10 fractional digits",
    (total) => {
      const pattern = new RegExp(
        String(at(["components", "schemas", "OrderTotals", "properties", total, "pattern"])),
      );
      expect("805.2900000000").toMatch(pattern);
      expect("-0.0000000001").toMatch(pattern);
      for (const wrong of ["805.29", "805", "8.05e2", "805.29000000001", ""])
        expect(wrong).not.toMatch(pattern);
    },
  );
});

function pathOf(id: string): [string, string] {
  const found = operationById(id);
  if (!found) throw new Error(`no operation ${id}`);
  return [found.path, found.method];
}

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

type Where = readonly string[];
interface LimitMapping {
  /** The Value cell of the document's row, as written; a change there must be looked at here. */
  value: string;
  checks: readonly (readonly [where: Where, expected: unknown])[];
}

const schema = (...rest: string[]): Where => ["components", "schemas", ...rest];
const request = (...rest: string[]) =>
  ["OrderRequestWithOrderShipTo", "OrderRequestWithLineShipTo"].map((name) =>
    schema(name, "properties", ...rest),
  );
const line = (...rest: string[]): Where => schema("OrderLineRequest", "properties", ...rest);
const shipTos = ["ShipTo", "LineShipTo"] as const;
const op = (id: string, ...rest: string[]): Where => ["paths", ...pathOf(id), ...rest];
const limit = (id: string): Where => op(id, "parameters", "@limit", "schema");
const webhookPosts = Object.keys(spec.webhooks as Json).map((name) => ["webhooks", name, "post"]);
const PRINTABLE_ASCII_1_TO_100 = "^[\\x20-\\x7E]{1,100}$";

const both = <T>(wheres: Where[], expected: T) => wheres.map((w) => [w, expected] as const);
const perShipTo = (field: string, key: string, expected: unknown) =>
  shipTos.map((s) => [schema(s, "properties", field, key), expected] as const);
const pageSize = (id: string, byDefault: number, cap: number) => [
  [[...limit(id), "default"], byDefault] as const,
  [[...limit(id), "minimum"], 1] as const,
  [[...limit(id), "x-cap"], cap] as const,
  // A cap is not a rejection: the schema must not refuse what the server accepts.
  [[...limit(id), "maximum"], undefined] as const,
];

const limitMappings: Record<string, LimitMapping> = {
  "Request body size": {
    value: "256 KB in UTF-8 bytes",
    checks: [[op("submitOrder", "requestBody", "x-max-body-bytes"), 256 * 1024]],
  },
  "Lines per order": {
    value: "1 to 100",
    checks: [...both(request("lines", "minItems"), 1), ...both(request("lines", "maxItems"), 100)],
  },
  "partnerOrderId length": {
    value: "1 to 100, printable ASCII",
    checks: [
      ...both(request("partnerOrderId", "minLength"), 1),
      ...both(request("partnerOrderId", "maxLength"), 100),
      ...both(request("partnerOrderId", "pattern"), PRINTABLE_ASCII_1_TO_100),
    ],
  },
  "partnerLineId length": {
    value: "1 to 100, printable ASCII, unique within the request",
    checks: [
      [line("partnerLineId", "minLength"), 1],
      [line("partnerLineId", "maxLength"), 100],
      [line("partnerLineId", "pattern"), PRINTABLE_ASCII_1_TO_100],
      ...both(request("lines", "x-unique-key"), "partnerLineId"),
    ],
  },
  "productId length": {
    value: "up to 24",
    checks: [
      [line("productId", "maxLength"), 24],
      [line("productId", "pattern"), "^(SLO|SLS)_[0-9]{1,18}$"],
    ],
  },
  "sku length": { value: "up to 100", checks: [[line("sku", "maxLength"), 100]] },
  "jobName length": { value: "up to 200", checks: [[line("jobName", "maxLength"), 200]] },
  "artworkUrl length": { value: "up to 2000", checks: [[line("artworkUrl", "maxLength"), 2000]] },
  templateVariables: {
    value: "up to 50 entries; key up to 100; value up to 2000",
    checks: [
      [line("templateVariables", "maxProperties"), 50],
      [line("templateVariables", "propertyNames", "maxLength"), 100],
      [line("templateVariables", "additionalProperties", "maxLength"), 2000],
      [
        line("templateVariables", "propertyNames", "not", "enum"),
        ["__proto__", "constructor", "prototype"],
      ],
    ],
  },
  "shipTo name, company, address1, address2, city": {
    value: "up to 200 each",
    checks: ["name", "company", "address1", "address2", "city"].flatMap((field) =>
      perShipTo(field, "maxLength", 200),
    ),
  },
  "shipTo state": { value: "up to 100", checks: perShipTo("state", "maxLength", 100) },
  "shipTo postalCode": { value: "up to 20", checks: perShipTo("postalCode", "maxLength", 20) },
  "shipTo phone": { value: "up to 40", checks: perShipTo("phone", "maxLength", 40) },
  "shipTo email": {
    value: "up to 254",
    checks: [
      [schema("ShipTo", "properties", "email", "maxLength"), 254],
      // Order-level only: a line's shipTo has no email and rejects unknown keys.
      [schema("LineShipTo", "properties", "email"), undefined],
      [schema("LineShipTo", "additionalProperties"), false],
    ],
  },
  "shipTo country": {
    value: "exactly 2 characters",
    checks: [...perShipTo("country", "minLength", 2), ...perShipTo("country", "maxLength", 2)],
  },
  "siteId, quantity, variantId": {
    value: "positive integers, no other ceiling",
    checks: [
      ...[...request("siteId"), line("quantity"), line("variantId")].flatMap((w) => [
        [[...w, "type"], "integer"] as const,
        [[...w, "minimum"], 1] as const,
        [[...w, "maximum"], undefined] as const,
      ]),
    ],
  },
  "Synchronous wait for a terminal submission state": {
    value: "up to 20 seconds",
    checks: [[op("submitOrder", "x-synchronous-wait-seconds"), 20]],
  },
  "Poll interval hint": {
    value: "`Retry-After: 2`",
    checks: [
      ...["200", "201"].map(
        (status) =>
          [
            op(
              "submitOrder",
              "responses",
              status,
              "headers",
              "Retry-After",
              "x-poll-interval-seconds",
            ),
            2,
          ] as const,
      ),
      [
        op(
          "getSubmission",
          "responses",
          "200",
          "headers",
          "Retry-After",
          "x-poll-interval-seconds",
        ),
        2,
      ],
    ],
  },
  "Page size: orders list": {
    value: "default 50, capped at 200",
    checks: pageSize("listOrders", 50, 200),
  },
  "Page size: items": {
    value: "default 50, capped at 200",
    checks: pageSize("listOrderItems", 50, 200),
  },
  "Page size: shipments": {
    value: "default 25, capped at 50",
    checks: pageSize("listOrderShipments", 25, 50),
  },
  "Page size: submissions list": {
    value: "default 50, above 100 rejected",
    checks: [
      [[...limit("listSubmissions"), "default"], 50],
      [[...limit("listSubmissions"), "minimum"], 1],
      [[...limit("listSubmissions"), "maximum"], 100],
      [[...limit("listSubmissions"), "x-cap"], undefined],
    ],
  },
  "Page size: products list": {
    value: "default 100, capped at 500",
    checks: pageSize("listProducts", 100, 500),
  },
  "Packages per shipments response": {
    value: "5,000 (then `packagesComplete` is false)",
    checks: [
      [schema("ShipmentList", "x-max-packages-per-response"), 5000],
      [schema("ShipmentList", "properties", "packagesComplete", "type"), "boolean"],
    ],
  },
  "Quote quantity": {
    value: "at least 1",
    checks: [[schema("QuoteRequest", "properties", "quantity", "minimum"), 1]],
  },
  "Webhook acknowledgement time": {
    value: "5 seconds",
    checks: webhookPosts.map((w) => [[...w, "x-ack-timeout-seconds"], 5] as const),
  },
  "Webhook signature timestamp tolerance": {
    value: "300 seconds",
    checks: [
      [["components", "parameters", "PlatformSignature", "x-timestamp-tolerance-seconds"], 300],
    ],
  },
  "mTLS certificate chain length": {
    value: "at most 4",
    checks: [[["components", "securitySchemes", "mutualTLS", "x-max-chain-length"], 4]],
  },
};

/** The numbers a Value cell states ("5,000" is 5000, "256 KB" is 262144, "UTF-8" is no number). */
function numbersIn(value: string): number[] {
  return [...value.matchAll(/(?<![\w-])(\d[\d,]*)(\s*KB)?(?![\w-])/g)].map((m) => {
    const n = Number((m[1] as string).replaceAll(",", ""));
    return m[2] ? n * 1024 : n;
  });
}

const limitRows = tableRows(section("## Limits")).map(
  ([name, value, appliesTo]) => [name ?? "", value ?? "", appliesTo ?? ""] as const,
);

describe("limits of the API document", () => {
  it("are found in the document", () => {
    expect(limitRows.length).toBeGreaterThanOrEqual(28);
  });

  it.each(limitRows)("%s (%s, %s) is a spec constraint", (name, value) => {
    const mapping = limitMappings[name];
    expect(mapping, `limit "${name}" has no mapping to the spec`).toBeDefined();
    if (!mapping) return;
    expect(value, `limit "${name}" changed in the document; review its mapping`).toBe(
      mapping.value,
    );
    for (const [where, expected] of mapping.checks) {
      expect(at(where), `limit "${name}": ${where.join(" > ")}`).toEqual(expected);
    }
    // Every number the document states must be one the spec checks enforce.
    const enforced = mapping.checks.map(([, expected]) => expected);
    for (const n of numbersIn(value)) {
      expect(enforced, `limit "${name}": ${n} is not in the spec`).toContain(n);
    }
  });

  it.each(Object.keys(limitMappings))("mapping %s names a row of the document", (name) => {
    expect(limitRows.map(([rowName]) => rowName)).toContain(name);
  });
});

// ---------------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------------

const eventRows = tableRows(section("### Event types")).map(
  ([type, reread]) => [unquote(type ?? ""), reread ?? ""] as const,
);

function eventTypeConst(node: unknown): unknown {
  const s = deref(node);
  if (!isObject(s)) return undefined;
  const own = (deref((s.properties as Json | undefined)?.type) as Json | undefined)?.const;
  if (own !== undefined) return own;
  for (const branch of (s.allOf ?? []) as unknown[]) {
    const found = eventTypeConst(branch);
    if (found !== undefined) return found;
  }
  return undefined;
}

describe("webhook event types", () => {
  it("are found in the document", () => {
    expect(eventRows.length).toBeGreaterThanOrEqual(4);
  });

  it.each(eventRows)("%s is in webhooks and re-reads %s", (type, reread) => {
    const webhook = at(["webhooks", type, "post"]) as Json | undefined;
    expect(webhook, `webhooks has no ${type}`).toBeDefined();
    const body = at(["webhooks", type, "post", "requestBody", "content", "application/json"]);
    expect(eventTypeConst((body as Json).schema)).toBe(type);
    const [endpoint, method] = pathOf(String(webhook?.["x-reread"]));
    expect(reread.match(/^(GET|POST) (\S+)/)?.slice(1)).toEqual([method.toUpperCase(), endpoint]);
  });

  it.each(eventRows.map(([type]) => type))("%s carries the signature headers", (type) => {
    const names = (at(["webhooks", type, "post", "parameters"]) as unknown[])
      .map(deref)
      .map((p) => (p as Json).name);
    expect(names).toEqual(expect.arrayContaining(["Platform-Signature", "Platform-Event-Id"]));
  });

  const payloadRows = tableRows(section("### Payload fields")).map(([field]) =>
    unquote(field ?? ""),
  );

  it.each(payloadRows)("payload field %s is described", (field) => {
    const base = at(schema("WebhookEventBase", "properties", field));
    const shipment = at([
      "components",
      "schemas",
      "ShipmentShippedEvent",
      "allOf",
      "1",
      "properties",
      field,
    ]);
    expect(base ?? shipment, `no webhook schema has ${field}`).toBeDefined();
  });
});
