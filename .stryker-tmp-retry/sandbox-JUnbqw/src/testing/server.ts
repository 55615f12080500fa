// @ts-nocheck
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Transport } from "./auth";
import { type HandleResult, withMethod } from "./handler";

/** Options of `sandbox.listen()`. */
export interface ListenOptions {
  /**
   * The port to listen on.
   * @default 0 (any free port)
   */
  port?: number;
  /**
   * The loopback address to listen on.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * Serve HTTPS. With `requestCert: true` (the default when `tls` is given) this is the mutual-TLS
   * host: the handshake requires a client certificate chained to `ca`, the certificate is the
   * credential, and no Authorization header is read (API document, "Mutual TLS").
   */
  tls?: {
    /** The server's private key, PEM. */
    key: string | Buffer;
    /** The server's certificate, PEM. */
    cert: string | Buffer;
    /** CA certificates that client certificates must chain to. */
    ca?: string | Buffer | Array<string | Buffer>;
    /**
     * Require a client certificate at the handshake (the mutual-TLS host); `false` serves plain
     * HTTPS with bearer authentication.
     * @default true
     */
    requestCert?: boolean;
  };
}

/** A running sandbox server, from `sandbox.listen()`. */
export interface Listener {
  /** Base URL, e.g. `http://127.0.0.1:41234`: give it to the client as `baseUrl`. */
  url: string;
  /** The port it listens on (the one chosen when `port` was 0). */
  port: number;
  /** Stops the server; `sandbox.close()` also closes every listener. */
  close(): Promise<void>;
}

type Handle = (request: Request, transport: Transport) => Promise<HandleResult>;

/** Methods a Fetch `Request` cannot carry (Fetch standard, forbidden methods). */
const FETCH_FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** A real HTTP(S) server on loopback in front of the sandbox's request path. */
export async function listen(handle: Handle, options: ListenOptions = {}): Promise<Listener> {
  const host = options.host ?? "127.0.0.1";
  const tls = options.tls;
  const mtls = tls !== undefined && tls.requestCert !== false;
  const scheme = tls ? "https" : "http";
  let base = "";

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch(() => req.socket.destroy());
  };
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
        headers.append(name, v);
    }
    const aborted = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    const method = req.method ?? "GET";
    // Fetch refuses to build a Request for TRACE, TRACK and CONNECT; the sandbox still answers them
    // like any method no route has (405 method_not_allowed), so the request is built without a body
    // and carries its real method beside it.
    const forbidden = FETCH_FORBIDDEN_METHODS.has(method.toUpperCase());
    const request = new Request(`${base}${req.url ?? "/"}`, {
      method: forbidden ? "GET" : method,
      headers,
      signal: aborted.signal,
      ...(method === "GET" || method === "HEAD" || forbidden
        ? {}
        : { body: Buffer.concat(chunks) }),
    });
    if (forbidden) withMethod(request, method);
    const peer = mtls ? (req.socket as TLSSocket).getPeerX509Certificate?.() : undefined;
    const transport: Transport = mtls
      ? { kind: "mtls", peer: peer && { subject: peer.subject, serialNumber: peer.serialNumber } }
      : { kind: "bearer" };
    const result = await handle(request, transport);
    if (result.drop) {
      // A dropped connection: no status line at all, as when the network fails.
      req.socket.destroy();
      return;
    }
    const { response } = result;
    const body = Buffer.from(await response.arrayBuffer());
    res.statusCode = response.status;
    response.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    res.end(body);
  };

  const server = tls
    ? (await import("node:https")).createServer(
        { key: tls.key, cert: tls.cert, ca: tls.ca, requestCert: mtls, rejectUnauthorized: mtls },
        onRequest,
      )
    : (await import("node:http")).createServer(onRequest);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  base = `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url: base,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
