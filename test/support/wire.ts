import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { baseUrl } from "./fake-server";

/**
 * Which wire the client suites run over. `PARTNER_ORDERS_TEST_WIRE=undici` (the "undici" project of
 * vitest.config.ts) runs them over a real socket with the SDK's default wire, `undici.request`;
 * otherwise the fake server is the client's `fetch`.
 */
export const overUndici = process.env.PARTNER_ORDERS_TEST_WIRE === "undici";

type Handle = (request: Request) => Promise<Response>;

/**
 * A loopback HTTP server that hands each request to the fake server of the latest harness, as a
 * `Request` under the fake server's origin: the suites' routes and assertions stay as written.
 */
export interface Bridge {
  /** The client's baseUrl. */
  url: string;
  /** The fake server that answers from now on. */
  use(handle: Handle): void;
}

async function startBridge(): Promise<Bridge> {
  let current: Handle | undefined;
  const server = createServer((req, res) => {
    void answer(req, res, current);
  });
  // Keep-alive sockets must not keep the test process alive.
  server.unref();
  // A deep backlog: the suites start a thousand calls at once.
  await new Promise<void>((resolve) =>
    server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    use: (handle) => {
      current = handle;
    },
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, handle: Handle | undefined) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  // The client gave up (its timeout or abort): the request's signal says so, as fetch's would.
  const gone = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) gone.abort(new DOMException("aborted", "AbortError"));
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "host" || name === "connection") continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const request = new Request(`${baseUrl}${req.url}`, {
    method: req.method ?? "GET",
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
    signal: gone.signal,
    // Nothing on the wire says how the client treats a redirect: undici.request follows none.
    redirect: "manual",
  });
  let response: Response;
  try {
    if (!handle) throw new Error("no fake server");
    response = await handle(request);
  } catch {
    // A fake fetch that throws is a failed connection: drop the socket.
    req.socket.destroy();
    return;
  }
  if (gone.signal.aborted) return;
  const out = new Headers(response.headers);
  res.writeHead(response.status, [...out].flat());
  const text = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  res.end(text);
}

/** Started once per test file, when the suites run over undici. */
export const bridge: Bridge | undefined = overUndici ? await startBridge() : undefined;
