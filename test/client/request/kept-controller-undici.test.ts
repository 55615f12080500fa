import { getEventListeners } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as undici from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { undiciWire } from "../../../src/core/http/wire";

// The request path keeps a finished attempt's timeout controller only when the wire says it has let
// the signal go: the Node wire must say so exactly when it holds no abort listener any more.

let held: ServerResponse | undefined;
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/plain" });
  res.write("part ");
  held = res;
});
const agent = new undici.Agent();
const wire = undiciWire(agent);
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

describe("the Node wire's released()", () => {
  it("is false while the body still comes, true once it has ended and the listener is gone", async () => {
    const signal = new AbortController().signal;
    const answer = await wire({ method: "GET", url, headers: {}, body: undefined, signal });
    expect(listeners(signal)).toBe(1);
    expect(answer.released?.()).toBe(false);
    const text = answer.text();
    held?.end("done");
    expect(await text).toBe("part done");
    expect(listeners(signal)).toBe(0);
    expect(answer.released?.()).toBe(true);
  });
});
