import { ResponseDecodeError } from "../core/errors";
import type { ApiOperationId, CallOptions, Operation } from "../core/http/operation";
import type { Http } from "../core/http/request";
import { type PageData, Paginated } from "../core/pagination";

/**
 * A list endpoint as a {@link Paginated}: `key` names the array in the response body
 * (`orders`, `items`, ...). The cursor is passed back exactly as received.
 */
export function paginate<T>(
  http: Http,
  operation: Operation,
  key: string,
  startCursor: string | undefined,
  options: CallOptions | undefined,
): Paginated<T> {
  return new Paginated<T>(
    (cursor) => fetchPage<T>(http, withCursor(operation, cursor), key, options),
    startCursor,
  );
}

export function withCursor<K extends ApiOperationId>(
  operation: Operation<K>,
  cursor: string | undefined,
): Operation<K> {
  if (cursor === undefined) return operation;
  const { params } = operation;
  return { ...operation, params: { ...params, query: { ...params.query, cursor } } };
}

export async function fetchPage<T>(
  http: Http,
  operation: Operation,
  key: string,
  options: CallOptions | undefined,
): Promise<PageData<T> & { body: Record<string, unknown> }> {
  const answer = await http.call(operation, options).withResponse();
  return lazyResponse(readPage<T>(operation.operationId, answer.data, key), answer);
}

/**
 * `page` with the answer's `response` as a getter: the web `Response` is built only when a caller
 * asks for it (`withResponse()`), so walking a list builds none (one per page costs more CPU than
 * the page's own request).
 */
export function lazyResponse<P extends object>(
  page: P,
  answer: { readonly response: Response },
): P & { readonly response: Response } {
  return Object.defineProperty(page, "response", {
    get: () => answer.response,
    enumerable: true,
  }) as P & { readonly response: Response };
}

/** A list body's rows (`key`) and next cursor; a body without the array is refused. */
export function readPage<T>(
  operationId: string,
  body: unknown,
  key: string,
): { data: T[]; nextCursor: string | null; body: Record<string, unknown> } {
  const data = (body ?? {}) as Record<string, unknown>;
  const items = data[key];
  if (!Array.isArray(items)) {
    throw new ResponseDecodeError(`The ${operationId} response has no "${key}" array.`, {
      operationId,
      path: key,
      reason: "missing, or not an array",
    });
  }
  const next = data.nextCursor;
  return { data: items as T[], nextCursor: typeof next === "string" ? next : null, body: data };
}
