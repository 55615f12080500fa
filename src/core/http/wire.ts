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
  /** True once the wire holds nothing of the request's signal, so it may serve another request. */
  released?(): boolean;
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

/** undici is an optional peer dependency: undefined when it is not installed. */
export function loadUndici(): Promise<Undici | undefined> {
  return import("undici").catch(() => undefined);
}

/**
 * Straight onto the dispatcher: no `undici.request` wrapper, body stream or URL parse on the REST
 * path; web streams only when asked for (MCP). A dispatcher follows no redirect.
 */
export function undiciWire(dispatcher: Dispatcher): Wire {
  return ({ method, url, headers, body, signal }) =>
    new Promise<WireAnswer>((resolve, reject) => {
      const slash = url.indexOf("/", url.indexOf("//") + 2);
      // An undici dispatcher reports any failure, even a closed one's, to the handler's onError.
      dispatcher.dispatch(
        {
          origin: slash === -1 ? url : url.slice(0, slash),
          path: slash === -1 ? "/" : url.slice(slash),
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
        },
        new Call(signal, resolve, reject),
      );
    });
}

// A discarded body this large is not worth reading for the connection's sake: the request ends.
const discardLimit = 128 * 1024;

/** One request as a legacy dispatch handler, and then its answer. */
class Call implements Dispatcher.DispatchHandler, WireAnswer {
  status = 0;
  // Set before anything that calls them: onConnect comes before onHeaders, onHeaders before the
  // answer, and so before discard() or a body stream.
  private abort!: (reason?: Error) => void;
  private reason: Error | undefined;
  private resume!: () => void;
  // The answer's header lines as undici gives them, decoded when first asked for.
  private given: Buffer[] = [];
  private all: Headers | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private done = false;
  private failure: Error | undefined;
  private read = false;
  private readText: string | undefined;
  private dropping = false;
  private waiting: { resolve(text: string): void; reject(error: Error): void } | undefined;
  private stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  private readonly onAbort = () => {
    this.reason = this.signal.reason;
    // Not yet connected: onConnect aborts.
    this.abort?.(this.reason);
  };

  /** `answer` and `fail` settle one promise: whichever comes second does nothing. */
  constructor(
    private readonly signal: AbortSignal,
    private readonly answer: (answer: WireAnswer) => void,
    private readonly fail: (error: Error) => void,
  ) {
    if (signal.aborted) this.reason = signal.reason;
    else signal.addEventListener("abort", this.onAbort);
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.reason) abort(this.reason);
    else this.abort = abort;
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    // 1xx answers (103 Early Hints) come before the real one; undici ignores what they return.
    if (status >= 200) this.answerWith(status, raw, resume);
    return true;
  }

  private answerWith(status: number, raw: Buffer[], resume: () => void): void {
    this.status = status;
    this.resume = resume;
    // Decoded when asked for: a success is read without its headers.
    this.given = raw;
    this.answer(this);
  }

  onData(chunk: Buffer): boolean {
    if (this.dropping) {
      this.size += chunk.length;
      if (this.size > discardLimit) this.abort();
      return true;
    }
    const stream = this.stream;
    if (stream) {
      // Resumed, the parser hands on an empty chunk first: queued, it would pause again at once.
      if (chunk.length > 0) stream.enqueue(chunk);
      // Paused only with a chunk left queued: a chunk handed straight to a waiting read has
      // already called pull(), whose resume() came before the pause (a large stream hung).
      // Stryker disable next-line EqualityOperator: equivalent, `>= 0` pauses one chunk later, still bounded
      return (stream.desiredSize as number) > 0;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.done = true;
    this.signal.removeEventListener("abort", this.onAbort);
    this.stream?.close();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(this.take());
  }

  onError(error: Error): void {
    // Never after onComplete: undici reports one end per request.
    this.signal.removeEventListener("abort", this.onAbort);
    this.failure = error;
    this.fail(error);
    this.stream?.error(error);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  released(): boolean {
    // Both remove the abort listener; nothing else keeps the signal.
    return this.done || !!this.failure;
  }

  header(name: string): string | null {
    return this.headers().get(name);
  }

  headers(): Headers {
    if (!this.all) {
      const all = new Headers();
      const raw = this.given;
      for (let i = 0; i < raw.length; i += 2) {
        all.append(
          (raw[i] as Buffer).toString("latin1"),
          (raw[i + 1] as Buffer).toString("latin1"),
        );
      }
      this.all = all;
    }
    return this.all;
  }

  text(): Promise<string> {
    if (this.read)
      return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
    this.read = true;
    if (this.failure) return Promise.reject(this.failure);
    const kept = (text: string) => {
      this.readText = text;
      return text;
    };
    if (this.done) return Promise.resolve(kept(this.take()));
    return new Promise<string>((resolve, reject) => {
      this.waiting = { resolve, reject };
    }).then(kept);
  }

  private take(): string {
    return Buffer.concat(this.taken()).toString("utf8");
  }

  /** The chunks kept so far, no longer held here: each is read or dropped once. */
  private taken(): Buffer[] {
    const chunks = this.chunks;
    // Stryker disable next-line ArrayDeclaration: equivalent, it only lets go of the memory
    this.chunks = [];
    return chunks;
  }

  response(): Response {
    const status = this.status;
    // A web Response may not carry a body with these statuses.
    const empty = status === 204 || status === 205 || status === 304;
    if (empty || this.read || this.done) {
      const text = empty ? null : this.read ? (this.readText ?? null) : this.take();
      if (!this.read && !this.done) this.discard();
      this.read = true;
      return new Response(text, { status, headers: this.headers() });
    }
    this.read = true;
    return new Response(
      new ReadableStream<Uint8Array>({
        start: (controller) => {
          for (const chunk of this.taken()) controller.enqueue(chunk);
          if (this.failure) controller.error(this.failure);
          else this.stream = controller;
        },
        pull: () => {
          this.resume();
        },
        // The reason stays with the reader; undici ends the request with its own abort error.
        cancel: () => {
          this.stream = undefined;
          this.abort();
        },
      }),
      { status, headers: this.headers() },
    );
  }

  /** Read on and dropped, so the connection is kept; a large body ends the request instead. */
  discard(): void {
    if (this.done || this.failure) return;
    this.dropping = true;
    this.read = true;
    for (const chunk of this.taken()) this.size += chunk.length;
    // Only a streamed body pauses the socket: nothing to resume here.
    if (this.size > discardLimit) this.abort();
  }
}
