import type { Http } from "../core/http/request";

/**
 * Answers the SDK gets as typed errors of this package, retried by the client's policy: 401 (one
 * fresh token), 403 (the edge firewall; no scope check applies to POST /v1/mcp), 429 (`Retry-After`)
 * and 5xx. Every other status is an MCP transport answer (400, 404, 405 for the optional GET stream,
 * 406, 415) and goes back to the SDK untouched.
 */
function isTypedStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 429 || status >= 500;
}

/**
 * The fetch behind `partner-orders/mcp`: the REST client's own request function, so its wire (mutual
 * TLS, a custom fetch), token source, retry policy and `maxRetries` apply (API document, POST
 * /v1/mcp: "Errors at HTTP level: 401, 429 (with Retry-After)").
 */
export function createMcpFetch(
  http: Http,
  defaultHeaders: Record<string, string>,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const href = String(url);
    const headers: Record<string, string> = {};
    // The client's defaultHeaders, under what the MCP SDK set (its Accept, session headers).
    for (const [name, value] of Object.entries(defaultHeaders)) headers[name] = value;
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init.body;
    const { data } = await http.request(
      {
        method: (init.method ?? "GET").toUpperCase(),
        url: href,
        path: new URL(href).pathname,
        operation: "mcp",
        headers,
        body: typeof body === "string" ? body : body == null ? undefined : await readBody(body),
        succeeds: (status) => (status >= 200 && status < 300) || !isTypedStatus(status),
        read: async (answer) => answer.response(),
      },
      init.signal ? { signal: init.signal } : {},
    );
    return data;
  };
}

/** A body the MCP SDK gave as something other than text (it sends JSON text). */
function readBody(body: BodyInit): Promise<string> {
  return new Response(body).text();
}
