/**
 * `partner-orders/mcp`: the service's MCP endpoint (API document, POST /v1/mcp) through the official
 * MCP TypeScript SDK, authenticated like the REST client. `@modelcontextprotocol/sdk` is an optional
 * peer dependency: install it to use this entry; the root entry never loads it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { PartnerOrders } from "../client";
import { PartnerOrdersError } from "../core/errors";
import { type ConnectMcpOptions, connectWithAccess } from "../internal/mcp-connect";
import { mcpAccessOf } from "../internal/mcp-lookup";

export type { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
export type { ConnectMcpOptions } from "../internal/mcp-connect";

/**
 * A connected client of the official MCP SDK for POST /v1/mcp under the client's `baseUrl`, over the
 * Streamable HTTP transport. It authenticates as `client` does: with a bearer token from the same
 * token cache (one token request however many REST and MCP calls share it; a 401 is answered by one
 * fresh token), or with the client certificate on the mutual-TLS host. A 429 is retried after its
 * `Retry-After`, 503 and connection errors with backoff, all within the client's `maxRetries`; what
 * still fails is thrown as the REST client's typed error (`RateLimitError`, `AuthenticationError`...).
 *
 * Tool results carry the REST body as JSON text; a problem document comes back as a tool result
 * with `isError: true`.
 *
 * @example
 * import { connectMcp } from "partner-orders/mcp";
 * const mcp = await connectMcp(client);
 * const { tools } = await mcp.listTools();
 * const result = await mcp.callTool({ name: "get_order", arguments: { orderNumber: 100001 } });
 * await mcp.close();
 */
export async function connectMcp(
  client: PartnerOrders,
  options: ConnectMcpOptions = {},
): Promise<Client> {
  const access = mcpAccessOf(client);
  if (!access) throw new PartnerOrdersError("connectMcp() needs a PartnerOrders client.");
  return connectWithAccess(access, options);
}
