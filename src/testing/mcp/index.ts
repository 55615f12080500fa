/**
 * The sandbox's POST /v1/mcp (API document, POST /v1/mcp): the MCP Streamable HTTP transport,
 * stateless, one JSON answer per request, built on the official MCP SDK's server side. The SDK is an
 * optional peer dependency, loaded on the first MCP request only, so `partner-orders/testing` works
 * without it for everything else.
 *
 * Authentication, rate limits and injected faults happen before this handler runs (the sandbox's
 * pipeline): no valid credential is a 401 problem document, a 429 carries `Retry-After`.
 */

import { problem } from "../problem";
import type { Principal, RouteContext, RouteDefinition } from "../router";
import { argumentFault, describeTool, TOOLS, type ToolSpec } from "./tools";

export { TOOLS as MCP_TOOLS } from "./tools";

type ServerSdk = {
  Server: typeof import("@modelcontextprotocol/sdk/server/index.js").Server;
  WebStandardStreamableHTTPServerTransport: typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js").WebStandardStreamableHTTPServerTransport;
  types: typeof import("@modelcontextprotocol/sdk/types.js");
};

let sdk: Promise<ServerSdk> | undefined;

function loadSdk(): Promise<ServerSdk> {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([server, transport, types]) => ({
    Server: server.Server,
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    types,
  }));
  sdk.catch(() => {
    sdk = undefined;
  });
  return sdk;
}

/** The route that serves POST /v1/mcp. */
export function mcpRoute(): RouteDefinition {
  return { method: "POST", path: "/v1/mcp", handle: handleMcp };
}

async function handleMcp(ctx: RouteContext): Promise<Response> {
  let loaded: ServerSdk;
  try {
    loaded = await loadSdk();
  } catch {
    return problem(
      501,
      "not_implemented",
      "The sandbox's MCP endpoint needs @modelcontextprotocol/sdk: run `npm install @modelcontextprotocol/sdk`.",
      ctx.requestId,
    );
  }
  const { Server, WebStandardStreamableHTTPServerTransport, types } = loaded;
  const scopes = (ctx.principal as Principal).scopes;
  // "tools/list returns only the tools the credential's scopes allow" (API document, POST /v1/mcp).
  const allowed = TOOLS.filter((tool) => !tool.scope || scopes.includes(tool.scope));

  // The low-level Server rather than McpServer: the tool list depends on the caller, and the
  // argument schemas are the REST contract's, written as JSON Schema.
  const server = new Server(
    { name: "partner-orders-sandbox", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({
    tools: allowed.map(describeTool),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    const tool = TOOLS.find((t) => t.name === name);
    // JSON-RPC "Invalid params" (-32602) for a call that names no tool or cannot be sent as its REST
    // request. A plain Error with a code: McpError would prefix its message twice on the way back.
    const invalid = (message: string) =>
      Object.assign(new Error(message), { code: types.ErrorCode.InvalidParams });
    if (!tool) throw invalid(`Unknown tool: ${name}`);
    const fault = argumentFault(tool, args);
    if (fault) throw invalid(fault);
    return callTool(ctx, tool, args);
  });

  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(ctx.request);
  } finally {
    await server.close();
  }
}

/**
 * Runs the tool's REST operation as the same caller. A success is the REST body as text, byte for
 * byte (money keeps every digit); a problem document is a tool error (`isError`) carrying it. A
 * call outside the credential's scopes gets the REST route's own 403 insufficient_scope.
 */
async function callTool(ctx: RouteContext, tool: ToolSpec, args: Record<string, unknown>) {
  const { method, path, body } = tool.rest(args);
  const response = await ctx.callRest(method, path, body);
  const text = await response.text();
  return {
    content: [{ type: "text" as const, text }],
    ...(response.ok ? {} : { isError: true }),
  };
}
