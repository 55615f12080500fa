import { getEventListeners } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as undici from "undici";
import { afterAll, beforeAll } from "vitest";
import { undiciWire, type Wire } from "../../../src/core/http/wire";

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A node:http server on loopback and the undici wire in front of it, for one test file: each test
 * registers its own route, so the tests share one server and one connection pool.
 */
export function loopback() {
  const routes = new Map<string, Route>();
  const server = createServer((req, res) => routes.get(req.url ?? "")?.(req, res));
  const agent = new undici.Agent();
  const wire: Wire = undiciWire(agent);
  const at = { base: "" };
  let n = 0;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    at.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await agent.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  return {
    routes,
    wire,
    get base() {
      return at.base;
    },
    /** A fresh path answered by `handle`, as a full URL. */
    route(handle: Route): string {
      const path = `/r${++n}?q=${n}`;
      routes.set(path, handle);
      return `${at.base}${path}`;
    },
    get(url: string, signal = new AbortController().signal) {
      return wire({ method: "GET", url, headers: { accept: "*/*" }, body: undefined, signal });
    },
  };
}

export const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

/** Event-loop turns (each polls I/O): enough for a loopback socket to move, no wall clock. */
export async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

export function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
