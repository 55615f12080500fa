/**
 * How `partner-orders/mcp` reaches a client's authenticated fetch without a public field: a
 * non-enumerable, symbol-keyed property. `Symbol.for` because the root and the `mcp` entry are
 * separate bundles, each with its own copy of this module.
 */
const key = Symbol.for("partner-orders.mcp-access");

/** What the MCP transport needs from a client. */
export interface McpAccess {
  /** POST /v1/mcp under the client's `baseUrl`. */
  endpoint: URL;
  /**
   * A fetch for the MCP SDK's Streamable HTTP transport, authenticated like the REST client (same
   * token cache, or the client certificate) and retrying as it does.
   */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
}

export function attachMcpAccess(
  client: object,
  baseUrl: URL,
  fetch: McpAccess["fetch"],
): McpAccess {
  const access: McpAccess = {
    endpoint: new URL(`${baseUrl.href.replace(/\/$/, "")}/v1/mcp`),
    fetch,
  };
  Object.defineProperty(client, key, { value: () => access, enumerable: false });
  return access;
}

/** The access of a `PartnerOrders` client (from any copy of the package); undefined for anything else. */
export function mcpAccessOf(client: unknown): McpAccess | undefined {
  if (typeof client !== "object" || client === null) return undefined;
  const get = (client as { [key]?: unknown })[key];
  return typeof get === "function" ? (get() as McpAccess) : undefined;
}
