/** A call's result together with the HTTP response it came from. */
export interface WithResponse<T> {
  /** The call's result, as the promise itself resolves to. */
  data: T;
  /** The HTTP response, its body already read. */
  response: Response;
}

/** What every call returns: a promise of the data, plus `.withResponse()` for status and headers. */
export class APIPromise<T> implements PromiseLike<T> {
  /** @hidden `"APIPromise"`, for `Object.prototype.toString`. */
  readonly [Symbol.toStringTag] = "APIPromise";
  readonly #result: Promise<WithResponse<T>>;

  /** @hidden Made by the client's one request path; never constructed by callers. */
  constructor(result: Promise<WithResponse<T>>) {
    this.#result = result;
  }

  /** The data and the `Response` it came from (its body already read). */
  withResponse(): Promise<WithResponse<T>> {
    return this.#result;
  }

  /** Resolves with the call's data, as any promise does; rejects with a `PartnerOrdersError`. */
  // biome-ignore lint/suspicious/noThenProperty: this class is a promise of the call's data
  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#result.then((r) => r.data).then(onfulfilled, onrejected);
  }

  /** Handles a failed call, as `Promise.prototype.catch` does. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.then(undefined, onrejected);
  }

  /** Runs `onfinally` once the call settles, as `Promise.prototype.finally` does. */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }
}

export function mapResult<T, U>(
  promise: APIPromise<T>,
  transform: (data: T, response: Response) => U,
): APIPromise<U> {
  return new APIPromise(
    promise
      .withResponse()
      .then(({ data, response }) => ({ data: transform(data, response), response })),
  );
}
