import { describe, expect, it } from "vitest";
import { fetchWire } from "../../../src/core/http/wire";
import { deferred, loopback } from "./loopback";

// The other runtimes' transport, on the same loopback server as the undici wire.
const server = loopback();
const wire = fetchWire((request) => fetch(request));

function get(url: string) {
  return wire({
    method: "GET",
    url,
    headers: { authorization: "Bearer sekret-token" },
    body: undefined,
    signal: new AbortController().signal,
  });
}

describe("fetchWire", () => {
  it("reads one header by name, repeated ones joined", async () => {
    const answer = await get(
      server.route((_req, res) => {
        res.setHeader("X-Request-Id", "req-1");
        res.setHeader("x-many", ["1", "2"]);
        res.end("ok");
      }),
    );
    expect(answer.header("x-request-id")).toBe("req-1");
    expect(answer.header("x-many")).toBe("1, 2");
    expect(answer.header("x-missing")).toBeNull();
    expect(await answer.text()).toBe("ok");
  });

  it("follows no redirect: the 3xx is the answer and the location is never asked", async () => {
    let followed = 0;
    const target = server.route((_req, res) => {
      followed++;
      res.end();
    });
    const answer = await get(
      server.route((_req, res) => res.writeHead(307, { location: target }).end()),
    );
    expect(answer.status).toBe(307);
    expect(answer.header("location")).toBe(target);
    expect(followed).toBe(0);
  });

  it("ends the request when a body still arriving is discarded", async () => {
    const closed = deferred();
    const url = server.route((req, res) => {
      req.socket.on("close", closed.resolve);
      res.writeHead(200, { "content-length": String(64 * 1024 * 1024) });
      res.write(Buffer.alloc(1024 * 1024));
    });
    (await get(url)).discard();
    await closed.promise;
  });
});
