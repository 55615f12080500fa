/**
 * How `partner-orders/mcp` reaches a client's authenticated fetch without a public field: a
 * non-enumerable, symbol-keyed property. `Symbol.for` because the client writes it here and the
 * `mcp` entry reads it in mcp-lookup.ts, which may come from another copy of the package; the
 * reader lives there so that this module travels with the client alone and the root entry loads
 * no extra file for it.
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
