import type { FetchOptions } from "openapi-fetch";
import type { operations } from "../../generated/openapi";
import { routes } from "../../generated/routes";
import type { Violation } from "../errors";
import type { RequestOptions } from "../options";

/** @internal */
export type ApiOperationId = Exclude<keyof typeof routes, "createToken" | "mcp">;

/** @internal What the generated types say a call of `K` takes. */
export type CallInit<K extends ApiOperationId> = Pick<
  FetchOptions<operations[K]>,
  "params" | "body"
>;

/** @internal One call as a resource describes it. */
export interface Operation<K extends ApiOperationId = ApiOperationId> {
  operationId: K;
  params: { path?: Record<string, string | number>; query?: Record<string, unknown> };
  body?: unknown;
  /** False: no bearer token (GET /v1/ping). @default true */
  auth?: boolean;
  /** False for GET /v1/ping, whose body the API document does not show. @default true */
  decode?: boolean;
  decoder?: (operationId: string, text: string) => unknown;
  /** Any rejects the call (a rejection, not a throw) and nothing is sent. */
  violations?: readonly Violation[];
  what?: string;
}

/** @internal */
export type OperationExtras = Pick<Operation, "auth" | "decode" | "violations" | "what">;

/** @internal `init` is checked against the generated types of the operation. */
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
  /** Monotonic ms past which no attempt, retry or sleep is started. */
  deadline?: number;
}

export function methodOf(operation: Operation): "GET" | "POST" {
  return routes[operation.operationId].method === "post" ? "POST" : "GET";
}

/** Each route's path split once: literal text at even places, parameter names at odd ones. */
const templates = new Map<string, readonly string[]>();

/** The path with its parameters filled in, encoded (a regex replace per call cost a list walk dearly). */
export function displayPath(operation: Operation): string {
  const { operationId } = operation;
  let parts = templates.get(operationId);
  // Stryker disable next-line ConditionalExpression: splitting again gives the same parts (a cache)
  if (parts === undefined) {
    parts = routes[operationId].path.split(/\{(\w+)\}/);
    templates.set(operationId, parts);
  }
  let path = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    // Stryker disable next-line OptionalChaining,StringLiteral: operation() requires every path parameter its path names
    const value = operation.params.path?.[parts[i] as string] ?? "";
    path += encodeURIComponent(String(value)) + (parts[i + 1] as string);
  }
  return path;
}

/** As openapi-fetch's default serializer writes it (form style, exploded). */
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
