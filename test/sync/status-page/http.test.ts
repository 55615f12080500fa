import { get as httpGet } from "node:http";
import { networkInterfaces } from "node:os";
import { mirrorStatusPage, OrderMirror, sqliteStore } from "partner-orders/sync";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readUntil, type Synced, serve, syncedMirror } from "./support.js";

/** The status page's handler over plain HTTP: each adapter, each refusal, each endpoint. */
let s: Synced;
beforeAll(async () => {
  s = await syncedMirror();
});
afterAll(() => s?.cleanup());

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const onLoopback = { remoteAddress: "127.0.0.1", localAddress: "127.0.0.1" };
const get = (path: string, init?: RequestInit) =>
  new Request(new URL(path, "http://127.0.0.1:9/"), init);

/** Moves the mirror's clock until `done` is true, so an open change stream looks again. */
async function tickUntil(done: () => boolean) {
  for (let i = 0; i < 200 && !done(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    s.sandbox.clock.advance(1_000);
  }
}

describe("the Node adapter, on a loopback server", () => {
  it("serves the page, its script and style, status.json and the search, each under the CSP", async () => {
    const page = mirrorStatusPage(s.mirror);
    const server = await serve(page.node);
    try {
      const html = await fetch(server.url);
      expect(html.status).toBe(200);
      expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(html.headers.get("content-security-policy")).toBe(CSP);
      expect(html.headers.get("x-content-type-options")).toBe("nosniff");
      expect(html.headers.get("cache-control")).toBe("no-store");
      const text = await html.text();
      const status = await s.mirror.status();
      expect(text).toContain(`<dd data-figure="openOrders">${status.openOrders}</dd>`);
      // The mirror recorded the sync's requests in the store; the page reads them back.
      expect(text).toContain(`<dd data-figure="requestsLastHour">${s.report.requests}</dd>`);
      expect(text).toContain("<svg");

      const js = await fetch(new URL("app.js", server.url));
      expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(await js.text()).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
      expect((await fetch(new URL("app.css", server.url))).headers.get("content-type")).toBe(
        "text/css; charset=utf-8",
      );

      const view = await (await fetch(new URL("status.json", server.url))).json();
      expect(view.figures.openOrders).toBe(String(status.openOrders));
      expect(view.figures.lastSweep).toMatch(/finished$/);
      expect(view.chart.naivePerHour).toBeGreaterThan(s.report.requests);

      const first = (await s.mirror.orders({ limit: 1 }).next()).value;
      const byNumber = await (
        await fetch(new URL(`orders.json?q=${first?.orderNumber}`, server.url))
      ).json();
      expect(byNumber.orders).toEqual([
        expect.objectContaining({ orderNumber: first?.orderNumber, status: first?.status }),
      ]);
      const byStatus = await (
        await fetch(new URL(`orders.json?q=${encodeURIComponent(first?.status ?? "")}`, server.url))
      ).json();
      expect(byStatus.orders.length).toBeGreaterThan(0);
      expect(byStatus.orders.every((o: { status: string }) => o.status === first?.status)).toBe(
        true,
      );
      expect(byStatus.orders.length).toBeLessThanOrEqual(50);
    } finally {
      await server.close();
    }
  });

  it("is read-only: other methods 405, HEAD without a body, unknown paths 404, bad queries 400", async () => {
    const page = mirrorStatusPage(s.mirror);
    const server = await serve(page.node);
    try {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const answer = await fetch(server.url, { method });
        expect(answer.status, method).toBe(405);
        expect(answer.headers.get("allow")).toBe("GET, HEAD");
      }
      const head = await fetch(server.url, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
      expect((await fetch(new URL("admin", server.url))).status).toBe(404);
      const empty = await fetch(new URL("orders.json?q=%20", server.url));
      expect(empty.status).toBe(400);
      expect((await empty.json()).error).toBe("query_required");
      const long = await fetch(new URL(`orders.json?q=${"x".repeat(201)}`, server.url));
      expect((await long.json()).error).toBe("query_too_long");
    } finally {
      await server.close();
    }
  });

  it("streams changes as server-sent events, from now, and from Last-Event-ID after a reconnect", async () => {
    const page = mirrorStatusPage(s.mirror);
    const server = await serve(page.node);
    try {
      const stream = await fetch(new URL("events", server.url));
      expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      const body = stream.body as ReadableStream<Uint8Array>;
      const order = s.sandbox.admin.placeOrder({ lines: 1 });
      const [added] = await s.mirror.refresh(order);
      let text = "";
      const reading = readUntil(body, (t) => t.includes(`"order ${order},`)).then((t) => {
        text = t;
      });
      await tickUntil(() => text !== "");
      await reading;
      expect(text).toMatch(/^retry: 3000\n\n/);
      expect(text).toContain(`id: ${added?.id}\nevent: change\ndata: `);
      // A browser that reconnects says what it saw last: the change after it comes again.
      const again = await fetch(new URL("events", server.url), {
        headers: { "last-event-id": String((added?.id ?? 1) - 1) },
      });
      const replay = await readUntil(again.body as ReadableStream<Uint8Array>, (t) =>
        t.includes(`id: ${added?.id}\n`),
      );
      expect(replay).toContain('"type":"order.added"');
    } finally {
      page.close();
      await server.close();
    }
  });
});

describe("who may see the page", () => {
  it("without authorize, a request from another machine is refused (a non-loopback address)", async () => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === "IPv4")?.address;
    const page = mirrorStatusPage(s.mirror);
    if (address) {
      // Listening on this machine's network address: the peer is that address, not loopback.
      const server = await serve(page.node, address);
      try {
        const answer = await fetch(server.url);
        expect(answer.status).toBe(403);
        expect((await answer.json()).error).toBe("loopback_only");
        expect(await (await fetch(new URL("events", server.url))).text()).not.toContain("retry");
      } finally {
        await server.close();
      }
    }
    // The same decision, made from the socket's addresses a server passes.
    const res = { statusCode: 0, setHeader: vi.fn(), write: vi.fn(), end: vi.fn(), once: vi.fn() };
    await page.node(
      {
        method: "GET",
        url: "/",
        headers: { host: "status.example" },
        socket: { remoteAddress: "203.0.113.9", localAddress: "192.0.2.2" },
      },
      res,
    );
    expect(res.statusCode).toBe(403);
  });

  it("on loopback, a proxied request or a Host that is not this machine is refused", async () => {
    const page = mirrorStatusPage(s.mirror);
    const server = await serve(page.node);
    try {
      expect((await fetch(server.url)).status).toBe(200);
      const proxied = await fetch(server.url, { headers: { "x-forwarded-for": "198.51.100.4" } });
      expect(proxied.status).toBe(403);
      // fetch cannot set Host; node:http sends what a rebound browser would.
      const rebound = await new Promise<{ status: number }>((resolve, reject) =>
        httpGet(server.url, { headers: { host: "attacker.example:80" } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0 });
        }).on("error", reject),
      );
      expect(rebound.status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it("with authorize, every request is asked: 401 without credentials, 403 with refused ones", async () => {
    const seen: unknown[] = [];
    const logger = { error: vi.fn() };
    const page = mirrorStatusPage(s.mirror, {
      logger,
      authorize: (req) => {
        seen.push(req);
        const auth =
          "headers" in req && !(req.headers instanceof Headers)
            ? req.headers.authorization
            : undefined;
        if (auth === "Bearer boom") throw new Error("authorizer down");
        return auth === "Bearer right";
      },
    });
    const server = await serve(page.node);
    try {
      expect((await fetch(server.url)).status).toBe(401);
      const wrong = await fetch(server.url, { headers: { authorization: "Bearer wrong" } });
      expect(wrong.status).toBe(403);
      expect(await wrong.text()).not.toContain("mirror");
      expect((await fetch(server.url, { headers: { authorization: "Bearer boom" } })).status).toBe(
        403,
      );
      expect(logger.error).toHaveBeenCalledOnce();
      const right = await fetch(server.url, { headers: { authorization: "Bearer right" } });
      expect(right.status).toBe(200);
      // Forwarded, from a proxy: authorize decides, not the address.
      const proxied = await fetch(server.url, {
        headers: { authorization: "Bearer right", "x-forwarded-for": "198.51.100.4" },
      });
      expect(proxied.status).toBe(200);
      expect(seen).toHaveLength(5);
    } finally {
      await server.close();
    }
  });

  it("is made for an OrderMirror and an authorize function only", () => {
    expect(() => mirrorStatusPage({} as OrderMirror)).toThrow(TypeError);
    expect(() => mirrorStatusPage(s.mirror, { authorize: true as never })).toThrow(TypeError);
  });
});

describe("the Fetch adapter and the Express shape", () => {
  it("serves a Fetch Request when the server says it came over loopback, refuses it otherwise", async () => {
    const page = mirrorStatusPage(s.mirror);
    expect((await page.fetch(get("/status.json"))).status).toBe(403);
    expect((await page.fetch(get("/status.json"), { remoteAddress: "192.0.2.7" })).status).toBe(
      403,
    );
    const served = await page.fetch(get("/status.json"), onLoopback);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-security-policy")).toBe(CSP);
    // Deno's `info`, Hono's node-server `env`, and the handler called directly.
    expect((await page.fetch(get("/"), { remoteAddr: { hostname: "127.0.0.1" } })).status).toBe(
      200,
    );
    const env = { incoming: { socket: onLoopback } };
    expect((await page.fetch(get("/app.js"), env)).status).toBe(200);
    expect((await page(get("/app.css"), onLoopback)).status).toBe(200);
    expect((await page.fetch(get("/", { method: "POST" }), onLoopback)).status).toBe(405);
    // Mounted under a path: the full path comes in, the last segment routes.
    const mounted = await page.fetch(get("/ops/status/"), onLoopback);
    expect(await mounted.text()).toContain('<script src="app.js" defer></script>');
    expect((await page.fetch(get("/ops/status/status.json"), onLoopback)).status).toBe(200);
    expect((await page.fetch(get("/ops/status/admin"), onLoopback)).status).toBe(404);
  });

  it("streams changes through a Fetch Response body", async () => {
    const page = mirrorStatusPage(s.mirror);
    const answer = await page.fetch(get("/events"), onLoopback);
    expect(answer.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const order = s.sandbox.admin.placeOrder({ lines: 1 });
    await s.mirror.refresh(order);
    let text = "";
    const reading = readUntil(answer.body as ReadableStream<Uint8Array>, (t) =>
      t.includes(`"order ${order},`),
    ).then((t) => {
      text = t;
    });
    await tickUntil(() => text !== "");
    await reading;
    expect(text).toContain("event: change");
    page.close();
  });

  it("mounted under a path in Express: adds the trailing slash, passes unknown paths to next()", async () => {
    const page = mirrorStatusPage(s.mirror);
    const next = vi.fn();
    // What Express's app.use("/ops", page.express) does: req.url relative to the mount point.
    const server = await serve(async (req, res) => {
      const originalUrl = req.url ?? "/";
      if (!originalUrl.startsWith("/ops")) return res.writeHead(404).end();
      Object.assign(req, { originalUrl, url: originalUrl.slice(4) || "/" });
      await page.express(req, res, () => {
        next();
        res.writeHead(418).end();
      });
    });
    try {
      const bare = await fetch(new URL("ops", server.url), { redirect: "manual" });
      expect(bare.status).toBe(308);
      expect(bare.headers.get("location")).toBe("./ops/");
      const followed = await fetch(new URL("ops", server.url));
      expect(followed.url).toBe(new URL("ops/", server.url).href);
      expect(followed.status).toBe(200);
      expect((await fetch(new URL("ops/else", server.url))).status).toBe(418);
      expect(next).toHaveBeenCalledOnce();
    } finally {
      await server.close();
    }
  });
});

describe("a mirror that cannot be read", () => {
  it("answers 503 with the code, never a stack, on the page and in status.json", async () => {
    const broken = new OrderMirror({
      client: s.client,
      store: sqliteStore("/nonexistent-dir/for/the/page/orders.db"),
    });
    const page = mirrorStatusPage(broken, { logger: { error: vi.fn() } });
    const html = await page.fetch(get("/"), onLoopback);
    expect(html.status).toBe(503);
    expect(await html.text()).toContain("The mirror could not be read");
    const json = await page.fetch(get("/status.json"), onLoopback);
    expect(json.status).toBe(503);
    expect((await json.json()).error).toMatch(/^[a-z_]+$/);
  });
});
