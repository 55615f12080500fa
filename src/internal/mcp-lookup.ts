/**
 * The `mcp` entry's half of mcp-access.ts: reads the access a client attached. Kept apart from the
 * writer so that the root entry, which only writes, does not load this code, and the lazily loaded
 * mcp-connect.ts stays as small as it was.
 */
import type { McpAccess } from "./mcp-access";

/** The key `attachMcpAccess` (mcp-access.ts) writes; the same symbol through the global registry. */
const key = Symbol.for("partner-orders.mcp-access");

/** The access of a `PartnerOrders` client (from any copy of the package); undefined for anything else. */
export function mcpAccessOf(client: unknown): McpAccess | undefined {
  if (typeof client !== "object" || client === null) return undefined;
  const get = (client as { [key]?: unknown })[key];
  return typeof get === "function" ? (get() as McpAccess) : undefined;
}
