import type { Dispatcher } from "undici";

export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
}

export interface WireAnswer {
  readonly status: number;
  header(name: string): string | null;
  /** Made on demand: a success does not need them. */
  headers(): Headers;
  /** Read at most once. */
  text(): Promise<string>;
  /** Its body streamed when unread (MCP). */
  response(): Response;
  discard(): void;
}

export type Wire = (request: WireRequest) => Promise<WireAnswer>;

export type Fetch = (request: Request) => Promise<Response>;

/** A redirect is never followed: credentials stay with the origin. */
export function fetchWire(fetch: Fetch): Wire {
  return async ({ method, url, headers, body, signal }) => {
    const response = await fetch(
      new Request(url, { method, headers, body, signal, redirect: "manual" }),
    );
    return fromResponse(response);
  };
}

function fromResponse(response: Response): WireAnswer {
  return {
    status: response.status,
    header: (name) => response.headers.get(name),
    headers: () => response.headers,
    text: () => response.text(),
    response: () => response,
    discard: () => {
      response.body?.cancel().catch(() => {});
    },
  };
}

type Undici = typeof import("undici");

export async function loadUndici(): Promise<Undici | undefined> {
  try {
    return await import("undici");
  } catch {
    return undefined;
  }
}

/** No web streams, `Request` or `Response` unless asked for; undici.request follows no redirect. */
export function undiciWire(undici: Undici, dispatcher: Dispatcher): Wire {
  return async ({ method, url, headers, body, signal }) => {
    const answer = await undici.request(url, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      signal,
      dispatcher,
    });
    return fromUndici(answer);
  };
}

function fromUndici(answer: Dispatcher.ResponseData): WireAnswer {
  const { statusCode, headers: raw, body } = answer;
  let read: string | undefined;
  let headers: Headers | undefined;
  const all = () => {
    headers ??= new Headers(
      Object.entries(raw).flatMap(([name, value]) =>
        value === undefined
          ? []
          : Array.isArray(value)
            ? value.map((v): [string, string] => [name, v])
            : [[name, value] as [string, string]],
      ),
    );
    return headers;
  };
  return {
    status: statusCode,
    header: (name) => {
      const value = raw[name];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
    headers: all,
    text: async () => {
      read = await body.text();
      return read;
    },
    response: () => {
      // A web Response may not carry a body with these statuses.
      const empty = statusCode === 204 || statusCode === 205 || statusCode === 304;
      if (read !== undefined || empty) {
        if (read === undefined) body.dump().catch(() => {});
        return new Response(empty ? null : read, { status: statusCode, headers: all() });
      }
      // Only MCP reads its body as a stream: web streams stay off the REST path.
      const stream = (body as unknown as { [Symbol.asyncIterator](): AsyncIterator<Uint8Array> })[
        Symbol.asyncIterator
      ]();
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            try {
              const { value, done } = await stream.next();
              if (done) controller.close();
              else controller.enqueue(new Uint8Array(value));
            } catch (error) {
              controller.error(error);
            }
          },
          cancel: () => {
            body.destroy();
          },
        }),
        { status: statusCode, headers: all() },
      );
    },
    discard: () => {
      body.dump().catch(() => {});
    },
  };
}
