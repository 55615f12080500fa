import type { FetchOptions } from "openapi-fetch";
import type { operations } from "../../generated/openapi";
import { routes } from "../../generated/routes";
import type { Violation } from "../errors";
import type { RequestOptions } from "../options";

/** @internal The API operations; the token and MCP requests are built by their own modules. */
export type ApiOperationId = Exclude<keyof typeof routes, "createToken" | "mcp">;

/**
 * @internal What the generated types say a call of `K` takes: its path and query parameters and its
 * JSON body. A wrong name, type or missing required value is a compile error where the call is made.
 */
export type CallInit<K extends ApiOperationId> = Pick<
  FetchOptions<operations[K]>,
  "params" | "body"
>;

/** @internal One call as a resource describes it: made by {@link operation}, which checks its types. */
export interface Operation<K extends ApiOperationId = ApiOperationId> {
  /** The spec's operationId: it selects the method, the path and which response fields are money. */
  operationId: K;
  /** Path and query parameters, path ones already checked against their documented formats. */
  params: { path?: Record<string, string | number>; query?: Record<string, unknown> };
  /** JSON body; serialised once, so every retry sends identical bytes. */
  body?: unknown;
  /** False for the calls that need no application credential (GET /v1/ping). @default true */
  auth?: boolean;
  /**
   * False when the success body is not read as data: GET /v1/ping, whose response shape the API
   * document does not show, succeeds on any 2xx whatever its body. @default true
   */
  decode?: boolean;
  /**
   * Reads a success body into data; `decodeBody` (core/money.ts) when not given. The order mirror's page gives
   * `decodeRows`, which keeps a row it cannot read out of the page instead of refusing the page.
   */
  decoder?: (operationId: string, text: string) => unknown;
  /**
   * Broken rules found in the call's arguments. When there is any, the call is rejected with a
   * `RequestValidationError` and nothing is sent (rejected, not thrown, so
   * `Promise.allSettled` and `.catch()` see it like any other failure).
   */
  violations?: readonly Violation[];
  /** Names the arguments in that error's message, e.g. "order request". */
  what?: string;
}

/** @internal How an operation is sent, beside what the spec types. */
export type OperationExtras = Pick<Operation, "auth" | "decode" | "violations" | "what">;

/**
 * @internal Describes a call of `operationId`: `init` is checked against the generated types of
 * that operation (its path and query parameters and its body), so a resource cannot send a
 * parameter the spec does not have, or leave out one it requires.
 */
export function operation<K extends ApiOperationId>(
  operationId: K,
  init: CallInit<K>,
  extras: OperationExtras = {},
): Operation<K> {
  const { params, body } = init as { params?: Operation["params"]; body?: unknown };
  return { operationId, params: params ?? {}, body, ...extras };
}

/** @internal */
export interface CallOptions extends RequestOptions {
  /** Monotonic ms past which no attempt, retry or sleep is started (submitOrderAndWait). */
  deadline?: number;
}

/** The operation's HTTP method, upper-case as messages and log lines show it. */
export function methodOf(operation: Operation): "GET" | "POST" {
  return routes[operation.operationId].method === "post" ? "POST" : "GET";
}

/** The request path with its parameters filled in and no query string: safe for messages and logs. */
export function displayPath(operation: Operation): string {
  return routes[operation.operationId].path.replace(/\{(\w+)\}/g, (_, name: string) =>
    // Stryker disable next-line OptionalChaining,StringLiteral: operation() requires every path parameter its path names
    encodeURIComponent(String(operation.params.path?.[name] ?? "")),
  );
}

/**
 * The query string of `query`, as openapi-fetch's default serializer writes it for the spec's
 * parameters (form style, exploded): `a=1&b=x%20y`, an array as one pair per item, nothing for
 * undefined or null.
 */
export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return "";
  let text = "";
  for (const name in query) {
    const value = query[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      text += `${text ? "&" : "?"}${encodeURIComponent(name)}=${encodeURIComponent(String(item))}`;
    }
  }
  return text;
}
