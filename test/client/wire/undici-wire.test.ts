import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { deferred, listeners, loopback, turns } from "./loopback";

const server = loopback();
const { routes, route, get, wire } = server;

describe("undiciWire on the dispatcher", () => {
  it("sends method, path with query, headers and body", async () => {
    let seen: { method?: string; url?: string; type?: string; body: string } = { body: "" };
    const url = route((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen = { method: req.method, url: req.url, type: req.headers["content-type"], body };
        res.end("ok");
      });
    });
    const answer = await wire({
      method: "POST",
      url,
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
      signal: new AbortController().signal,
    });
    expect(await answer.text()).toBe("ok");
    expect(seen).toEqual({
      method: "POST",
      url: url.slice(server.base.length),
      type: "application/json",
      body: '{"a":1}',
    });
  });

  it("presents repeated headers as undici.request does, names lower-cased", async () => {
    const url = route((_req, res) => {
      res.setHeader("X-Upper", "One");
      res.setHeader("x-many", ["1", "2", "3"]);
      res.setHeader("Set-Cookie", ["a=1", "b=2"]);
      res.end();
    });
    const answer = await get(url);
    expect(answer.status).toBe(200);
    expect(answer.header("x-upper")).toBe("One");
    expect(answer.header("x-many")).toBe("1, 2, 3");
    expect(answer.header("x-missing")).toBeNull();
    expect(answer.headers().get("x-many")).toBe("1, 2, 3");
    expect(answer.headers().getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(answer.headers()).toBe(answer.headers());
    expect(await answer.text()).toBe("");
  });

  it("joins a body sent in many chunks, a character split across two, and reads it once", async () => {
    const bytes = Buffer.from("é".repeat(5000) + "end", "utf8");
    const url = route((_req, res) => {
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return res.end();
        // 333 is odd: some chunks end inside a two-byte character.
        res.write(bytes.subarray(at, at + 333), next);
        at += 333;
      };
      next();
    });
    const answer = await get(url);
    expect(await answer.text()).toBe(`${"é".repeat(5000)}end`);
    await expect(answer.text()).rejects.toThrow(TypeError);
  });

  it("follows no redirect", async () => {
    const url = route((_req, res) => {
      res.writeHead(302, { location: "/elsewhere" }).end();
    });
    const answer = await get(url);
    expect(answer.status).toBe(302);
    expect(answer.header("location")).toBe("/elsewhere");
  });

  it("rejects with the signal's reason when aborted before connecting, sending nothing", async () => {
    let hits = 0;
    const url = route((_req, res) => {
      hits++;
      res.end();
    });
    const controller = new AbortController();
    const reason = new Error("stop first");
    controller.abort(reason);
    await expect(get(url, controller.signal)).rejects.toBe(reason);
    expect(listeners(controller.signal)).toBe(0);
    await get(url).then((a) => a.text());
    expect(hits).toBe(1);
  });

  it("rejects with the signal's reason when aborted while waiting for headers", async () => {
    const arrived = deferred();
    const closed = deferred();
    const url = route((_req, res) => {
      res.on("close", closed.resolve);
      arrived.resolve();
    });
    const controller = new AbortController();
    const pending = get(url, controller.signal);
    await arrived.promise;
    expect(listeners(controller.signal)).toBe(1);
    const reason = new Error("stop waiting");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closed.promise;
    expect(listeners(controller.signal)).toBe(0);
  });

  it("rejects text() with the signal's reason when aborted while the body streams", async () => {
    const url = route((_req, res) => {
      res.writeHead(200);
      res.write("part");
    });
    const controller = new AbortController();
    const answer = await get(url, controller.signal);
    const text = answer.text();
    const reason = new Error("stop reading");
    controller.abort(reason);
    await expect(text).rejects.toBe(reason);
    expect(listeners(controller.signal)).toBe(0);
  });

  it("keeps a body's error until text() asks", async () => {
    const url = route((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("short", () => res.destroy());
    });
    const answer = await get(url);
    await turns(20);
    await expect(answer.text()).rejects.toThrow();
  });

  it("lets go of the signal once the body is complete", async () => {
    const url = route((_req, res) => res.end("done"));
    const controller = new AbortController();
    const answer = await get(url, controller.signal);
    expect(await answer.text()).toBe("done");
    expect(listeners(controller.signal)).toBe(0);
    controller.abort(new Error("late"));
    expect(answer.status).toBe(200);
  });

  it("streams an SSE body as it comes, with backpressure, for response()", async () => {
    const second = deferred();
    const url = route((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      void second.promise.then(() => res.end("data: two\n\n"));
    });
    const response = (await get(url)).response();
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe("data: one\n\n");
    second.resolve();
    expect(decoder.decode((await reader.read()).value)).toBe("data: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("streams a body larger than the socket buffers to its end", async () => {
    const total = 8 * 1024 * 1024;
    const url = route((_req, res) => {
      res.writeHead(200, { "content-length": String(total) });
      res.end(Buffer.alloc(total, 120));
    });
    const response = (await get(url)).response();
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value.length;
      await turns(1);
    }
    expect(received).toBe(total);
  });

  it("aborts the request when the streamed body is cancelled", async () => {
    const closed = deferred();
    const url = route((_req, res) => {
      res.writeHead(200);
      res.write("first");
      res.on("close", closed.resolve);
    });
    const response = (await get(url)).response();
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    await closed.promise;
  });

  it("gives response() the text once read or complete, and no body for 204", async () => {
    const url = route((_req, res) => res.end('{"a":1}'));
    const read = await get(url);
    await read.text();
    expect(await read.response().json()).toEqual({ a: 1 });
    const complete = await get(url);
    await turns(20);
    expect(await complete.response().text()).toBe('{"a":1}');
    const empty = await get(route((_req, res) => res.writeHead(204).end()));
    const response = empty.response();
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("discards a small body and keeps the connection", async () => {
    let socket: IncomingMessage["socket"] | undefined;
    const url = route((req, res) => {
      socket = req.socket;
      res.end("x".repeat(10_000));
    });
    (await get(url)).discard();
    await turns(20);
    expect(socket?.destroyed).toBe(false);
  });

  it("ends the request rather than read on a large discarded body", async () => {
    const closed = deferred();
    const url = route((_req, res) => {
      res.writeHead(200, { "content-length": String(64 * 1024 * 1024) });
      res.write(Buffer.alloc(1024 * 1024));
      res.on("close", closed.resolve);
    });
    (await get(url)).discard();
    await closed.promise;
  });

  it("asks for / when the URL names only an origin", async () => {
    let seen: string | undefined;
    routes.set("/", (req, res) => {
      seen = req.url;
      res.end("root");
    });
    expect(await (await get(server.base)).text()).toBe("root");
    expect(seen).toBe("/");
  });

  it("answers with the final status and headers, past an informational one", async () => {
    const url = route((_req, res) => {
      res.writeEarlyHints({ link: "</a.css>; rel=preload" }, () => {
        res.setHeader("x-final", "yes");
        res.end("body");
      });
    });
    const answer = await get(url);
    expect(answer.status).toBe(200);
    expect(answer.header("x-final")).toBe("yes");
    expect(answer.header("link")).toBeNull();
    expect(await answer.text()).toBe("body");
  });

  it("gives response() what arrived before it was asked for, then the rest", async () => {
    const rest = deferred();
    const url = route((_req, res) => {
      res.writeHead(200);
      res.write("first;");
      void rest.promise.then(() => res.end("second"));
    });
    const answer = await get(url);
    await turns(20);
    const reader = (answer.response().body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe("first;");
    rest.resolve();
    expect(decoder.decode((await reader.read()).value)).toBe("second");
    expect((await reader.read()).done).toBe(true);
  });

  it("errors a streamed body that fails, before or after response() was asked for", async () => {
    const failing = () =>
      route((_req, res) => {
        res.writeHead(200, { "content-length": "100" });
        res.write("short", () => res.destroy());
      });
    const early = await get(failing());
    await turns(20);
    const before = (early.response().body as ReadableStream<Uint8Array>).getReader();
    await expect(before.read()).rejects.toThrow();
    const late = await get(failing());
    const after = (late.response().body as ReadableStream<Uint8Array>).getReader();
    await expect(
      (async () => {
        for (;;) if ((await after.read()).done) return "ended";
      })(),
    ).rejects.toThrow();
  });

  it("aborts a streamed body cancelled with a reason that is not an error", async () => {
    const closed = deferred();
    const url = route((_req, res) => {
      res.writeHead(200);
      res.write("first");
      res.on("close", closed.resolve);
    });
    const reader = ((await get(url)).response().body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel("no longer wanted");
    await closed.promise;
  });

  it("ends the request when more than the discard limit had already arrived", async () => {
    const closed = deferred();
    const url = route((_req, res) => {
      res.writeHead(200, { "content-length": String(1024 * 1024) });
      res.write(Buffer.alloc(200 * 1024));
      res.on("close", closed.resolve);
    });
    const answer = await get(url);
    await turns(50);
    answer.discard();
    await closed.promise;
  });

  it("does nothing on discard once the body is complete", async () => {
    const url = route((_req, res) => res.end("done"));
    const answer = await get(url);
    await turns(20);
    answer.discard();
    expect(await answer.response().text()).toBe("done");
  });
});
