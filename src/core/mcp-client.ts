// Described here so the root declarations never name `@modelcontextprotocol/sdk`, an optional peer.

/** Options of one MCP request (a subset of the MCP SDK's `RequestOptions`). */
export interface McpRequestOptions {
  /** Cancels the request. */
  signal?: AbortSignal;
  /** Bound on the request, in milliseconds. @default 60000 */
  timeout?: number;
}

/** One tool of `tools/list`: the service has one per REST operation (`get_order`, `list_orders`...). */
export interface McpTool {
  /** The tool's name, as `callTool` takes it. */
  name: string;
  /** What the tool does. */
  description?: string;
  /** JSON Schema of the tool's arguments. */
  inputSchema: { [key: string]: unknown };
  [key: string]: unknown;
}

/** What `listTools()` resolves to: the tools the client's scopes allow. */
export interface McpToolList {
  /** The tools of this page. */
  tools: McpTool[];
  /** Set when more tools follow: pass it back as `listTools({ cursor })`. */
  nextCursor?: string;
  [key: string]: unknown;
}

/** One item of a tool result's `content`. */
export interface McpContent {
  /** `"text"` for the service's tools (others exist in MCP: `"image"`, `"resource"`...). */
  type: string;
  /** A `"text"` item's text: for the service's tools, the REST operation's JSON body. */
  text?: string;
  [key: string]: unknown;
}

/** What `callTool()` resolves to. */
export interface McpToolResult {
  /** One `"text"` item with the REST operation's JSON (money as decimal text). */
  content?: McpContent[];
  /** True when the content is a problem document rather than the operation's result. */
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * A connected client of the service's MCP endpoint; `partner-orders/mcp` exports the full type.
 * @example
 * const mcp = await client.mcp;
 * const { tools } = await mcp.listTools();
 * const result = await mcp.callTool({ name: "get_order", arguments: { orderNumber: 100001 } });
 */
export interface McpClient {
  /** `tools/list`: the tools this client's scopes allow. */
  listTools(params?: { cursor?: string }, options?: McpRequestOptions): Promise<McpToolList>;
  /** `tools/call`: runs one tool with its arguments (the REST path and query parameters). */
  callTool(params: {
    name: string;
    arguments?: { [key: string]: unknown };
  }): Promise<McpToolResult>;
  /** MCP `ping`: resolves when the server answers. */
  ping(options?: McpRequestOptions): Promise<unknown>;
  /** Closes the connection. */
  close(): Promise<void>;
}
