/**
 * The sandbox's MCP tools: one per REST operation of the API document, each run through the REST
 * route itself (POST /v1/mcp: "tools/call runs the same logic and contract as the corresponding
 * REST operation"). Tool names and argument shapes are not published by the API document; these
 * follow the REST names: path and query parameters become arguments of the same name.
 */
// @ts-nocheck


const ORDERS_READ = "partner-api/orders:read";

type JsonType = "integer" | "string" | "object" | "array";

interface Argument {
  type: JsonType;
  description: string;
  enum?: readonly string[];
}

export interface ToolSpec {
  name: string;
  description: string;
  /** A scope the credential must hold for the tool to be listed (the REST route's scope). */
  scope?: string;
  /** Arguments by name; `submit_order` takes the whole order request instead. */
  args: Record<string, Argument>;
  required: readonly string[];
  /** The REST request the tool stands for. */
  rest(args: Record<string, unknown>): { method: "GET" | "POST"; path: string; body?: unknown };
}

const cursor: Argument = {
  type: "string",
  description: "Opaque nextCursor of the previous page; never build or edit one.",
};
const limit = (text: string): Argument => ({ type: "integer", description: text });
const orderNumber: Argument = { type: "integer", description: "The platform order number." };
const productId: Argument = {
  type: "string",
  description: "`SLO_` or `SLS_` followed by 1 to 18 digits; treat as opaque.",
};

/** `/v1/x/{a}` with `args.a` filled in, plus the given optional query arguments. */
function path(template: string, args: Record<string, unknown>, query: string[] = []): string {
  const filled = template.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String(args[name])),
  );
  const search = new URLSearchParams();
  for (const name of query) {
    const value = args[name];
    if (value !== undefined && value !== null) search.set(name, String(value));
  }
  const qs = search.toString();
  return qs ? `${filled}?${qs}` : filled;
}

export const TOOLS: readonly ToolSpec[] = [
  {
    name: "list_orders",
    description:
      "GET /v1/orders: one page of orders across the granted sites, ordered by placedOn. Follow nextCursor until it is null.",
    scope: ORDERS_READ,
    args: {
      siteId: { type: "integer", description: "Only orders of this granted site." },
      status: { type: "string", description: "Exact-match order status." },
      cursor,
      limit: limit("Page size; default 50, capped at 200."),
    },
    required: [],
    rest: (a) => ({
      method: "GET",
      path: path("/v1/orders", a, ["siteId", "status", "cursor", "limit"]),
    }),
  },
  {
    name: "get_order",
    description: "GET /v1/orders/{orderNumber}: one order with its totals (decimal strings).",
    scope: ORDERS_READ,
    args: { orderNumber },
    required: ["orderNumber"],
    rest: (a) => ({ method: "GET", path: path("/v1/orders/{orderNumber}", a) }),
  },
  {
    name: "list_order_items",
    description:
      "GET /v1/orders/{orderNumber}/items: one page of an order's lines, cancelled lines included.",
    args: { orderNumber, cursor, limit: limit("Page size; default 50, capped at 200.") },
    required: ["orderNumber"],
    rest: (a) => ({
      method: "GET",
      path: path("/v1/orders/{orderNumber}/items", a, ["cursor", "limit"]),
    }),
  },
  {
    name: "list_shipments",
    description:
      "GET /v1/orders/{orderNumber}/shipments: one page of an order's shipments with tracking numbers.",
    args: { orderNumber, cursor, limit: limit("Page size; default 25, capped at 50.") },
    required: ["orderNumber"],
    rest: (a) => ({
      method: "GET",
      path: path("/v1/orders/{orderNumber}/shipments", a, ["cursor", "limit"]),
    }),
  },
  {
    name: "submit_order",
    description:
      "POST /v1/orders: submits an order; the arguments are the order request itself (siteId, partnerOrderId, shipTo, lines). Resending the same request under the same partnerOrderId returns the original submission.",
    args: {
      siteId: { type: "integer", description: "A granted site." },
      partnerOrderId: {
        type: "string",
        description: "Your idempotency key, 1 to 100 printable ASCII.",
      },
      shipTo: { type: "object", description: "Order-level address (or a shipTo on every line)." },
      lines: { type: "array", description: "1 to 100 order lines." },
    },
    required: ["siteId", "partnerOrderId", "lines"],
    rest: (a) => ({ method: "POST", path: "/v1/orders", body: a }),
  },
  {
    name: "list_submissions",
    description: "GET /v1/orders/submissions: one page of your submissions, newest first.",
    args: {
      status: {
        type: "string",
        description: "Only submissions in this state.",
        enum: ["queued", "processing", "completed", "failed"],
      },
      cursor,
      limit: limit("Page size; default 50, above 100 rejected."),
    },
    required: [],
    rest: (a) => ({
      method: "GET",
      path: path("/v1/orders/submissions", a, ["status", "cursor", "limit"]),
    }),
  },
  {
    name: "get_submission",
    description:
      "GET /v1/orders/submissions/{submissionId}: a submission's current state; poll until completed or failed.",
    args: { submissionId: { type: "string", description: "The submission's UUID." } },
    required: ["submissionId"],
    rest: (a) => ({ method: "GET", path: path("/v1/orders/submissions/{submissionId}", a) }),
  },
  {
    name: "list_products",
    description: "GET /v1/products: one page of the orderable catalog, one entry per variant.",
    args: {
      siteId: { type: "integer", description: "Only products of this granted site." },
      serviceType: { type: "string", description: "STOCK or POD.", enum: ["STOCK", "POD"] },
      cursor,
      limit: limit("Page size; default 100, capped at 500."),
    },
    required: [],
    rest: (a) => ({
      method: "GET",
      path: path("/v1/products", a, ["siteId", "serviceType", "cursor", "limit"]),
    }),
  },
  {
    name: "get_product",
    description: "GET /v1/products/{productId}: a product with its variants.",
    args: { productId },
    required: ["productId"],
    rest: (a) => ({ method: "GET", path: path("/v1/products/{productId}", a) }),
  },
  {
    name: "quote_product",
    description: "POST /v1/products/{productId}/quote: the site price of a product at a quantity.",
    args: { productId, quantity: { type: "integer", description: "At least 1." } },
    required: ["productId", "quantity"],
    rest: (a) => ({
      method: "POST",
      path: path("/v1/products/{productId}/quote", a),
      body: { quantity: a.quantity },
    }),
  },
  {
    name: "list_sites",
    description: "GET /v1/sites: every granted site, live or not.",
    args: {},
    required: [],
    rest: () => ({ method: "GET", path: "/v1/sites" }),
  },
  {
    name: "me",
    description:
      "GET /v1/me: the credential's partner, granted sites, auth method and effective scopes.",
    args: {},
    required: [],
    rest: () => ({ method: "GET", path: "/v1/me" }),
  },
];

/** The tool as `tools/list` describes it. */
export function describeTool(tool: ToolSpec) {
  const properties = Object.fromEntries(
    Object.entries(tool.args).map(([name, arg]) => [
      name,
      {
        type: arg.type,
        description: arg.description,
        ...(arg.enum ? { enum: arg.enum } : {}),
        ...(arg.type === "array" ? { items: { type: "object" } } : {}),
      },
    ]),
  );
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: {
      type: "object" as const,
      properties,
      ...(tool.required.length ? { required: [...tool.required] } : {}),
      // The order request rejects unknown keys itself, with the REST route's invalid_request.
      additionalProperties: tool.name === "submit_order",
    },
  };
}

/**
 * Why `args` cannot be sent as the tool's REST request, or undefined when they can. Only the JSON
 * types are checked here; formats and ranges are the REST route's to judge, with its problem codes.
 */
export function argumentFault(tool: ToolSpec, args: Record<string, unknown>): string | undefined {
  // The order request is judged whole by POST /v1/orders, which names every violation itself.
  if (tool.name === "submit_order") return undefined;
  for (const name of tool.required) {
    if (args[name] === undefined) return `${tool.name}: ${name} is required.`;
  }
  for (const [name, value] of Object.entries(args)) {
    const spec = tool.args[name];
    if (!spec) return `${tool.name}: unknown argument ${name}.`;
    if (value === undefined || value === null) continue;
    const ok =
      spec.type === "integer"
        ? Number.isInteger(value)
        : spec.type === "array"
          ? Array.isArray(value)
          : typeof value === spec.type;
    if (!ok)
      return `${tool.name}: ${name} must be ${spec.type === "integer" ? "an integer" : `a ${spec.type}`}.`;
  }
  return undefined;
}
