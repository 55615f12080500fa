/** Options of `mirrorStatusPage`. */
export interface MirrorStatusPageOptions {
  /**
   * Decides each request: true serves it, false refuses it (401 without an `Authorization` header,
   * 403 with one). Given the request as the server passed it: a Node `IncomingMessage` (Express's
   * `req`) or a Fetch `Request`. A throw refuses it too (logged). Without `authorize` the page
   * serves only requests from this machine to this machine (loopback), and refuses the others.
   * @default none: loopback requests only
   * @example
   * authorize: (req) => req.headers.authorization === `Bearer ${process.env.STATUS_TOKEN}`
   */
  authorize?(request: NodeStatusPageRequest | Request): boolean | Promise<boolean>;
  /**
   * Where failures are reported (the mirror's store unreadable, `authorize` throwing).
   * @default console
   */
  logger?: {
    /** A failure, with details; never a secret. */
    error(message: string, details?: Record<string, unknown>): void;
  };
}

/** The parts of a Node `IncomingMessage` (or an Express request) the page reads. */
export interface NodeStatusPageRequest {
  /** `GET` and `HEAD` are served; anything else is answered 405. */
  method?: string | undefined;
  /** The path and query, relative to where the handler is mounted. */
  url?: string | undefined;
  /** Express's full path, used to add the trailing slash the page's relative links need. */
  originalUrl?: string | undefined;
  /** Node's `req.headers`. */
  headers: Record<string, string | string[] | undefined>;
  /** Node's socket: its addresses decide whether a request without `authorize` is served. */
  socket?: {
    /** The peer's address. */
    remoteAddress?: string | undefined;
    /** The address the request arrived on. */
    localAddress?: string | undefined;
  } | null;
}

/** The parts of a Node `ServerResponse` the page writes. */
export interface NodeStatusPageResponse {
  /** Set to the answer's status. */
  statusCode: number;
  /** Sets each header of the answer. */
  setHeader(name: string, value: string): unknown;
  /** Sends the headers at once (the change stream starts before its first event). */
  flushHeaders?(): void;
  /** Writes part of the change stream. */
  write(chunk: string): unknown;
  /** Ends the answer. */
  end(body?: string): unknown;
  /** Told when the connection closes: the change stream then stops. */
  once(event: "close", listener: () => void): unknown;
}

/**
 * A read-only status page of a mirror, usable as a Node `(req, res)` handler and as a Fetch
 * `(Request) => Response` handler, like the webhook handler: `.node` (also Express, Connect),
 * `.express` (passes unknown paths to `next`), `.fetch` (Hono, Next.js, Deno, Bun). The page is at
 * `/` of the handler; it calls `status.json`, `orders.json?q=` and the change stream `events`
 * beside it, and loads `app.js` and `app.css`.
 */
export interface MirrorStatusPage {
  (req: NodeStatusPageRequest, res: NodeStatusPageResponse): Promise<void>;
  (request: Request, ...context: unknown[]): Promise<Response>;
  /** `(req, res)` for `http.createServer`, Express, Connect. Never rejects. */
  node(req: NodeStatusPageRequest, res: NodeStatusPageResponse): Promise<void>;
  /** Express middleware: like `node`, a path the page does not know goes to `next()`. */
  express(
    req: NodeStatusPageRequest,
    res: NodeStatusPageResponse,
    next?: (error?: unknown) => void,
  ): Promise<void>;
  /**
   * `(Request) => Promise<Response>`. Never rejects. Without `authorize`, a later argument must say
   * where the request came from (Deno's `info.remoteAddr`, Hono's node `env.incoming.socket`, or
   * `{ remoteAddress, localAddress }`); otherwise the request is refused. Routed by the path's last
   * segment, so it works mounted under any path: the page is at a path that ends with `/`.
   */
  fetch(request: Request, ...context: unknown[]): Promise<Response>;
  /** Ends the open change streams (for a graceful shutdown). */
  close(): void;
}
