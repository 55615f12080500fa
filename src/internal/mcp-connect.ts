import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PartnerOrdersError } from "../core/errors";
import type { McpAccess } from "./mcp-access";

/** Options of `connectMcp`. */
export interface ConnectMcpOptions {
  /**
   * How this client introduces itself in MCP `initialize`.
   * @default { name: "partner-orders", version: "1.0.0" }
   */
  clientInfo?: {
    /** The client's name, as MCP servers log it. */
    name: string;
    /** The client's version. */
    version: string;
  };
  /** Aborts the connection handshake. */
  signal?: AbortSignal;
  /**
   * Bound on the `initialize` exchange, in milliseconds (the SDK's request timeout).
   * @default the SDK's default (60000)
   */
  timeoutMs?: number;
}

/** A connected MCP SDK client on `access` (see `connectMcp` in `partner-orders/mcp`). */
export async function connectWithAccess(
  access: McpAccess,
  options: ConnectMcpOptions = {},
): Promise<Client> {
  let sdk: [
    typeof import("@modelcontextprotocol/sdk/client/index.js"),
    typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ];
  try {
    sdk = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    ]);
  } catch {
    throw new PartnerOrdersError(
      "partner-orders/mcp needs the MCP SDK, an optional peer dependency: run `npm install @modelcontextprotocol/sdk`.",
    );
  }
  const [{ Client: McpClient }, { StreamableHTTPClientTransport }] = sdk;
  const transport = new StreamableHTTPClientTransport(access.endpoint, { fetch: access.fetch });
  const mcp = new McpClient(options.clientInfo ?? { name: "partner-orders", version: "1.0.0" });
  await mcp.connect(transport, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  });
  return mcp;
}
