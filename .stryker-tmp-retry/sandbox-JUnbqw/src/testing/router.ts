// @ts-nocheck
import type { PartnerRecord } from "./model";
import type { SandboxState } from "./state";

/**
 * Who is calling, once authentication has passed (API document, "Authentication").
 *
 * @inlineType PartnerRecord
 */
export interface Principal {
  /** The caller's partner record, as staff configured it. */
  partner: PartnerRecord;
  /** How the caller authenticated: a bearer token, or a client certificate. */
  authMethod: "COGNITO_M2M" | "MTLS";
  /** Effective scopes, used for authorization (for mTLS: the partner's capabilities). */
  scopes: string[];
}

/** What a route's `handle` receives for one request. */
export interface RouteContext {
  /** The request as received (its body not yet read). */
  request: Request;
  /** The request URL, parsed. */
  url: URL;
  /** The query string, parsed. */
  query: URLSearchParams;
  /** The path template's `{name}` segments, decoded, e.g. `{ orderNumber: "100001" }`. */
  params: Record<string, string>;
  /** Undefined only on routes declared `auth: "none"`. */
  principal: Principal | undefined;
  /** This request's id: put it in a problem document's `requestId`. */
  requestId: string;
  /** The sandbox's internal records: readable by custom routes, but not a stable contract. */
  state: SandboxState;
  /**
   * Runs another REST route as the same caller, without counting or faults. This is the seam for
   * POST /v1/mcp, whose `tools/call` "runs the same logic and contract as the corresponding REST
   * operation" (API document, POST /v1/mcp).
   */
  callRest(method: string, pathAndQuery: string, body?: unknown): Promise<Response>;
}

/**
 * A route of the sandbox, added with `sandbox.route()`: authentication, scope checks, request
 * counting and fault injection run before `handle`, as for the built-in routes.
 *
 * @example
 * sandbox.route({
 *   method: "GET",
 *   path: "/v1/ping",
 *   auth: "none",
 *   handle: () => new Response(null, { status: 204 }),
 * });
 */
export interface RouteDefinition {
  /** The HTTP method, upper case, e.g. `"POST"`. */
  method: string;
  /** Template with `{name}` segments, e.g. `/v1/orders/{orderNumber}`. */
  path: string;
  /** `"none"`: answered without a credential (ping, token endpoint). @default "credential" */
  auth?: "none" | "credential";
  /** A scope the effective set must hold, else 403 insufficient_scope. */
  scope?: string;
  /** Answers the request; a thrown error becomes a 500 `internal_error` problem document. */
  handle(ctx: RouteContext): Response | Promise<Response>;
}

interface CompiledRoute extends RouteDefinition {
  pattern: RegExp;
  keys: string[];
}

export type RouteMatch =
  | { route: CompiledRoute; params: Record<string, string> }
  | { route?: undefined; allow: string[] };

/**
 * The route table. Literal segments win over parameters, so `/v1/orders/submissions` is never read
 * as an order number. Adding a route with the same method and path replaces it.
 */
export class RouteTable {
  private readonly routes: CompiledRoute[] = [];

  add(definition: RouteDefinition): void {
    const keys: string[] = [];
    const source = definition.path
      .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
      .replace(/\\?\{(\w+)\\?\}/g, (_, key) => {
        keys.push(key);
        return "([^/]+)";
      });
    const compiled = {
      ...definition,
      method: definition.method.toUpperCase(),
      pattern: new RegExp(`^${source}$`),
      keys,
    };
    const existing = this.routes.findIndex(
      (r) => r.method === compiled.method && r.path === compiled.path,
    );
    if (existing >= 0) this.routes.splice(existing, 1, compiled);
    else this.routes.push(compiled);
    this.routes.sort((a, b) => a.keys.length - b.keys.length);
  }

  /** The route for `method` and `pathname`; or the methods allowed on that path; or undefined. */
  match(method: string, pathname: string): RouteMatch | undefined {
    const allow: string[] = [];
    for (const route of this.routes) {
      const m = route.pattern.exec(pathname);
      if (!m) continue;
      if (route.method !== method.toUpperCase()) {
        allow.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.keys.forEach((key, i) => {
        params[key] = safeDecode(m[i + 1] as string);
      });
      return { route, params };
    }
    return allow.length ? { allow } : undefined;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
