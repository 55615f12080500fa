import { createServer, type Socket } from "node:net";
import * as undici from "undici";
import { describe, expect, it } from "vitest";
import { undiciWire } from "../../../src/core/http/wire";
import { deferred, listeners, loopback, turns } from "./loopback";

const server = loopback();
const { route, get } = server;

/** The wire drops a discarded body up to this size and keeps the connection (wire.ts). */
const discardLimit = 128 * 1024;

describe("undiciWire: streamed bodies", () => {
  it("reads a large stream no faster than its reader: the server waits, then all of it arrives", async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    const url = route((_req, res) => {
      res.writeHead(200, { "content-length": String(total) });
      const block = Buffer.alloc(64 * 1024, 120);
      const pump = () => {
        while (written < total) {
          written += block.length;
          if (!res.write(block)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const reader = ((await get(url)).response().body as ReadableStream<Uint8Array>).getReader();
    let received = (await reader.read()).value?.length ?? 0;
    // The reader stops; without backpressure the whole body would arrive and wait in memory.
    let seen = -1;
    for (let still = 0; still < 100 && written < total; ) {
      await new Promise((resolve) => setImmediate(resolve));
      still = written === seen ? still + 1 : 0;
      seen = written;
    }
    // Socket buffers on loopback hold a few megabytes; the rest waits on the server.
    expect(written).toBeLessThan(total / 2);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value.length;
    }
    expect(received).toBe(total);
  });
});

describe("undiciWire: aborts", () => {
  it("rejects with the signal's reason when aborted before a connection is open, sending nothing", async () => {
    let hits = 0;
    const url = route((_req, res) => {
      hits++;
      res.end("ok");
    });
    // A pool of its own: no idle connection, so the request waits for one to open.
    const agent = new undici.Agent();
    const wire = undiciWire(agent);
    const send = (signal: AbortSignal) =>
      wire({ method: "GET", url, headers: {}, body: undefined, signal });
    try {
      const controller = new AbortController();
      const pending = send(controller.signal);
      const reason = new Error("stop before connecting");
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect(listeners(controller.signal)).toBe(0);
      expect(await (await send(new AbortController().signal)).text()).toBe("ok");
      expect(hits).toBe(1);
    } finally {
      await agent.close();
    }
  });
});

/** A bare TCP server that answers every request with `raw`, byte for byte. */
async function rawServer(raw: string) {
  const tcp = createServer((socket) => {
    socket.once("data", () => socket.end(raw));
  });
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  const { port } = tcp.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/raw`,
    close: () => new Promise((resolve) => tcp.close(resolve)),
  };
}

describe("undiciWire: headers", () => {
  it("joins a header repeated under names of different case", async () => {
    const raw = await rawServer(
      "HTTP/1.1 200 OK\r\nX-Tag: one\r\nx-tag: two\r\nX-TAG: three\r\nContent-Length: 2\r\n\r\nok",
    );
    try {
      const answer = await get(raw.url);
      expect(answer.header("x-tag")).toBe("one, two, three");
      expect(answer.headers().get("X-Tag")).toBe("one, two, three");
      expect(await answer.text()).toBe("ok");
    } finally {
      await raw.close();
    }
  });

  it("rejects an answer with a folded header line rather than guess its value", async () => {
    const raw = await rawServer(
      "HTTP/1.1 200 OK\r\nX-Folded: first\r\n  second\r\nContent-Length: 2\r\n\r\nok",
    );
    try {
      await expect(get(raw.url)).rejects.toThrow(/HTTP\/1\.1 protocol/);
    } finally {
      await raw.close();
    }
  });
});

describe("undiciWire: redirects and errors", () => {
  it.each([301, 307, 308])("answers %i as it is and never asks the location", async (status) => {
    let followed = 0;
    const target = route((_req, res) => {
      followed++;
      res.end("moved here");
    });
    const url = route((_req, res) => {
      res.writeHead(status, { location: target }).end("see elsewhere");
    });
    const answer = await server.wire({
      method: "POST",
      url,
      headers: { authorization: "Bearer sekret-token" },
      body: "{}",
      signal: new AbortController().signal,
    });
    expect(answer.status).toBe(status);
    expect(answer.header("location")).toBe(target);
    expect(await answer.text()).toBe("see elsewhere");
    expect(followed).toBe(0);
  });

  it("fails a dropped connection with an error that carries none of the request's headers", async () => {
    const url = route((req) => req.socket.destroy());
    const error = await server
      .wire({
        method: "GET",
        url,
        headers: { authorization: "Bearer sekret-token", "x-api-key": "sekret-key" },
        body: undefined,
        signal: new AbortController().signal,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Error);
    const seen = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String(error);
    expect(seen).not.toMatch(/sekret/);
  });
});

describe("undiciWire: answers", () => {
  it("keeps the connection for the next request once a body was read", async () => {
    const first = route((req, res) => res.end(String(req.socket.remotePort)));
    const answer = await get(first);
    await turns(20);
    const port = await answer.text();
    const second = route((req, res) => res.end(String(req.socket.remotePort)));
    expect(await (await get(second)).text()).toBe(port);
  });

  it("gives response() no body while text() is pending, and text() the whole body", async () => {
    const rest = deferred();
    const url = route((_req, res) => {
      res.writeHead(200).write("first;");
      void rest.promise.then(() => res.end("second"));
    });
    const answer = await get(url);
    const text = answer.text();
    expect(answer.response().body).toBeNull();
    rest.resolve();
    expect(await text).toBe("first;second");
  });

  it("rejects at once through a pool closed before", async () => {
    const agent = new undici.Agent();
    await agent.close();
    await expect(
      undiciWire(agent)({
        method: "GET",
        url: route((_req, res) => res.end()),
        headers: {},
        body: undefined,
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow(undici.errors.ClientDestroyedError);
  });

  it("refuses text() once the body was discarded or given to response()", async () => {
    const rest = deferred();
    const discarded = await get(
      route((_req, res) => {
        res.writeHead(200).write("dropped");
        void rest.promise.then(() => res.end());
      }),
    );
    discarded.discard();
    await expect(discarded.text()).rejects.toThrow(TypeError);
    rest.resolve();
    const complete = await get(route((_req, res) => res.end("given")));
    await turns(20);
    expect(await complete.response().text()).toBe("given");
    await expect(complete.text()).rejects.toThrow(TypeError);
    const more = deferred();
    const streaming = await get(
      route((_req, res) => {
        res.writeHead(200).write("streamed;");
        void more.promise.then(() => res.end("more"));
      }),
    );
    const response = streaming.response();
    await expect(streaming.text()).rejects.toThrow(TypeError);
    more.resolve();
    expect(await response.text()).toBe("streamed;more");
  });

  it("refuses a second read as fetch does", async () => {
    const answer = await get(route((_req, res) => res.end("once")));
    expect(await answer.text()).toBe("once");
    await expect(answer.text()).rejects.toThrow(
      new TypeError("Body is unusable: Body has already been read"),
    );
  });

  it.each([205, 304])("gives response() no body for %i", async (status) => {
    const answer = await get(route((_req, res) => res.writeHead(status).end()));
    const response = answer.response();
    expect(response.status).toBe(status);
    expect(response.body).toBeNull();
  });

  it("drops a large body on a 205 whose response() is asked for, ending the request", async () => {
    const closed = deferred();
    const url = route((_req, res) => {
      res.writeHead(205, { "content-length": String(64 * 1024 * 1024) });
      res.write(Buffer.alloc(1024 * 1024));
      res.on("close", closed.resolve);
    });
    const answer = await get(url);
    expect(answer.response().body).toBeNull();
    await closed.promise;
    await expect(answer.text()).rejects.toThrow(TypeError);
  });
});

describe("undiciWire: discarded bodies", () => {
  // A response's "close" also comes when it ends well: only the socket's tells a request ended.
  it("keeps the connection for a discarded body of exactly the limit", async () => {
    let socket: Socket | undefined;
    const url = route((req, res) => {
      socket = req.socket;
      res.writeHead(200, { "content-length": String(discardLimit) });
      res.end(Buffer.alloc(discardLimit));
    });
    (await get(url)).discard();
    await turns(50);
    expect(socket?.destroyed).toBe(false);
  });

  it("keeps the connection when a small body still arriving is discarded", async () => {
    let socket: Socket | undefined;
    const rest = deferred();
    const url = route((req, res) => {
      socket = req.socket;
      res.writeHead(200).write("part");
      void rest.promise.then(() => res.end("rest"));
    });
    (await get(url)).discard();
    rest.resolve();
    await turns(50);
    expect(socket?.destroyed).toBe(false);
  });

  it("keeps the connection when exactly the limit had arrived before the discard", async () => {
    let socket: Socket | undefined;
    const rest = deferred();
    const url = route((req, res) => {
      socket = req.socket;
      // Chunked: the body's end adds no byte.
      res.writeHead(200).write(Buffer.alloc(discardLimit));
      void rest.promise.then(() => res.end());
    });
    const answer = await get(url);
    await turns(50);
    answer.discard();
    rest.resolve();
    await turns(50);
    expect(socket?.destroyed).toBe(false);
  });

  it("ends the request when a discarded body passes the limit by one byte", async () => {
    const closed = deferred();
    const url = route((req, res) => {
      req.socket.on("close", closed.resolve);
      res.writeHead(200, { "content-length": String(discardLimit + 1) });
      res.write(Buffer.alloc(discardLimit), () => setImmediate(() => res.end("x")));
    });
    (await get(url)).discard();
    await closed.promise;
  });
});
