import { describe, expect, it, vi } from "vitest";
import { mirrorStatusPage } from "../../../src/sync/status-page/handler";
import { chartShapes } from "../../../src/sync/status-page/page";
import type { NodeStatusPageResponse } from "../../../src/sync/status-page/types";
import { type MirrorHarness, mirrorHarness } from "./mirror-support";

/** The status page's handler on an in-memory mirror, through the Fetch and the Node adapters. */
const onLoopback = { remoteAddress: "127.0.0.1", localAddress: "127.0.0.1" };
const get = (path: string, init?: RequestInit) => new Request(`http://127.0.0.1:9${path}`, init);

async function synced(count = 3): Promise<MirrorHarness> {
  const h = mirrorHarness();
  for (let n = 1; n <= count; n++)
    h.service.add(100_000 + n, { status: n === 1 ? "Held" : "In Production" });
  await h.mirror.sync();
  return h;
}

/** A Node response that keeps what was written. */
function response() {
  const res = {
    statusCode: 0,
    headers: {} as Record<string, string>,
    chunks: [] as string[],
    ended: false,
    closed: undefined as (() => void) | undefined,
    setHeader(name: string, value: string) {
      res.headers[name] = value;
    },
    write(chunk: string) {
      res.chunks.push(chunk);
    },
    end(body?: string) {
      if (body !== undefined) res.chunks.push(body);
      res.ended = true;
    },
    once(_event: "close", listener: () => void) {
      res.closed = listener;
    },
  };
  return res satisfies NodeStatusPageResponse;
}

const nodeRequest = (url: string, extra: Record<string, unknown> = {}) => ({
  method: "GET",
  url,
  headers: { host: "localhost:8080" },
  socket: { remoteAddress: "::1", localAddress: "::1" },
  ...extra,
});

describe("mirrorStatusPage on an in-memory mirror", () => {
  it("answers status.json with the view of status() and the requests the sync made", async () => {
    const h = await synced();
    const page = mirrorStatusPage(h.mirror);
    const answer = await page.fetch(get("/status.json"), onLoopback);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const view = await answer.json();
    expect(view.figures.openOrders).toBe("3");
    // The token is not an API request: /v1/me, the list, and items and shipments of 3 orders.
    expect(view.figures.requestsLastHour).toBe(String(h.service.calls.length - 1));
    expect(view.figures.naivePerHour).toBe(String((1 + 2 * 3) * 4));
    // The chart's marks, as the page draws them, so its script can redraw the chart in place.
    expect(view.shapes).toEqual(chartShapes(view.chart));
    expect(view.shapes.bars).toHaveLength(1);
    for (const [name, value] of Object.entries({
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "cache-control": "no-store",
    })) {
      expect(answer.headers.get(name), name).toBe(value);
    }
  });

  it("searches by number, by status, by partner order id; says when more match", async () => {
    const h = await synced(53);
    const page = mirrorStatusPage(h.mirror);
    const search = async (q: string) =>
      (await page.fetch(get(`/orders.json?q=${encodeURIComponent(q)}`), onLoopback)).json();
    expect(await search("100001")).toEqual({
      orders: [
        {
          orderNumber: 100001,
          siteId: 101,
          status: "Held",
          partnerOrderId: null,
          projectName: null,
          closed: false,
          unresolvable: false,
          updatedOn: null,
          total: null,
        },
      ],
      more: false,
    });
    expect(
      (await search(" Held ")).orders.map((o: { orderNumber: number }) => o.orderNumber),
    ).toEqual([100001]);
    const many = await search("In Production");
    expect(many.orders).toHaveLength(50);
    expect(many.more).toBe(true);
    expect(await search("999999")).toEqual({ orders: [], more: false });
    expect(await search("no such thing")).toEqual({ orders: [], more: false });
    const missing = await page.fetch(get("/orders.json"), onLoopback);
    expect([missing.status, (await missing.json()).error]).toEqual([400, "query_required"]);
    const long = await page.fetch(get(`/orders.json?q=${"9".repeat(201)}`), onLoopback);
    expect([long.status, (await long.json()).error]).toEqual([400, "query_too_long"]);
    const justRight = await page.fetch(get(`/orders.json?q=${"9".repeat(200)}`), onLoopback);
    expect(justRight.status).toBe(200);
  });

  it("serves its files, 204 for a favicon, 404 else, 405 for writes, and HEAD without a body", async () => {
    const h = await synced(1);
    const page = mirrorStatusPage(h.mirror);
    const at = (path: string, init?: RequestInit) => page.fetch(get(path, init), onLoopback);
    expect((await at("/app.js")).headers.get("content-type")).toBe(
      "text/javascript; charset=utf-8",
    );
    expect((await at("/app.css")).headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect((await at("/favicon.ico")).status).toBe(204);
    expect((await at("/nothing")).status).toBe(404);
    const post = await at("/", { method: "POST" });
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    const head = await at("/", { method: "HEAD" });
    expect([head.status, await head.text()]).toEqual([200, ""]);
    expect((await at("/events", { method: "HEAD" })).headers.get("content-type")).toBe(
      "text/event-stream; charset=utf-8",
    );
  });

  it("refuses without authorize unless loopback; asks authorize with the request otherwise", async () => {
    const h = await synced(1);
    expect((await mirrorStatusPage(h.mirror).fetch(get("/"))).status).toBe(403);
    const asked: unknown[] = [];
    const logger = { error: vi.fn() };
    const page = mirrorStatusPage(h.mirror, {
      logger,
      authorize: async (request) => {
        asked.push(request);
        const auth = (request as Request).headers.get("authorization");
        if (auth === "boom") throw new Error("down");
        return auth === "yes";
      },
    });
    const request = get("/status.json", { headers: { authorization: "yes" } });
    expect((await page.fetch(request)).status).toBe(200);
    expect(asked).toEqual([request]);
    expect((await page.fetch(get("/"))).status).toBe(401);
    expect((await page.fetch(get("/", { headers: { authorization: "no" } }))).status).toBe(403);
    expect((await page.fetch(get("/", { headers: { authorization: "boom" } }))).status).toBe(403);
    expect(logger.error).toHaveBeenCalledWith(
      "Status page authorize threw; the request is refused",
      {
        error: "down",
      },
    );
    // Only true serves: a truthy value that is not true does not.
    const loose = mirrorStatusPage(h.mirror, { authorize: () => 1 as unknown as boolean });
    expect((await loose.fetch(get("/"))).status).toBe(401);
  });

  it("answers 503 with the code when the store cannot be read, and logs it without secrets", async () => {
    const h = await synced(1);
    h.overrides.dueStats = () =>
      Promise.reject(
        Object.assign(new Error("no route to postgres://u:pw@db/x"), { code: "store_unavailable" }),
      );
    const logger = { error: vi.fn() };
    const page = mirrorStatusPage(h.mirror, { logger });
    const json = await page.fetch(get("/status.json"), onLoopback);
    expect(json.status).toBe(503);
    expect(await json.json()).toEqual({
      error: "store_unavailable",
      message: "no route to postgres://***@db/x",
    });
    const html = await page.fetch(get("/"), onLoopback);
    expect(html.status).toBe(503);
    expect(await html.text()).toContain(
      "<p>store_unavailable: no route to postgres://***@db/x</p>",
    );
    expect(JSON.stringify(logger.error.mock.calls)).not.toContain("pw");
  });
});

describe("the Node adapter", () => {
  it("writes status, headers and body; HEAD ends without one", async () => {
    const h = await synced(1);
    const page = mirrorStatusPage(h.mirror);
    const res = response();
    await page.node(nodeRequest("/status.json"), res);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(res.chunks.join("")).figures.openOrders).toBe("1");
    const head = response();
    await page(nodeRequest("/", { method: "HEAD" }), head);
    expect([head.statusCode, head.chunks, head.ended]).toEqual([200, [], true]);
    const remote = response();
    await page.node(nodeRequest("/", { socket: { remoteAddress: "192.0.2.9" } }), remote);
    expect(remote.statusCode).toBe(403);
  });

  it("streams events until the connection closes, then ends", async () => {
    const h = await synced(1);
    h.clock.park = true;
    const page = mirrorStatusPage(h.mirror);
    const res = response();
    const streaming = page.node(nodeRequest("/events"), res);
    await vi.waitFor(() => expect(res.closed).toBeTypeOf("function"));
    await vi.waitFor(() => expect(res.chunks).toContain("retry: 3000\n\n"));
    expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    res.closed?.();
    await streaming;
    expect(res.ended).toBe(true);
  });

  it("close() ends every open stream, Node's and Fetch's", async () => {
    const h = await synced(1);
    h.clock.park = true;
    const page = mirrorStatusPage(h.mirror);
    const res = response();
    const streaming = page.node(nodeRequest("/events"), res);
    const fetched = await page.fetch(get("/events"), onLoopback);
    await vi.waitFor(() => expect(res.chunks).toContain("retry: 3000\n\n"));
    page.close();
    await streaming;
    expect(res.ended).toBe(true);
    expect(await fetched.text()).toBe("retry: 3000\n\n");
  });

  it("as Express middleware: a trailing slash added under a mount, unknown paths to next()", async () => {
    const h = await synced(1);
    const page = mirrorStatusPage(h.mirror);
    const bare = response();
    await page.express(nodeRequest("/?x=1", { originalUrl: "/ops/st%61tus?x=1" }), bare);
    expect([bare.statusCode, bare.headers.location]).toEqual([308, "./status/?x=1"]);
    const slashed = response();
    await page.express(nodeRequest("/", { originalUrl: "/ops/status/" }), slashed);
    expect(slashed.statusCode).toBe(200);
    const next = vi.fn();
    const other = response();
    await page.express(nodeRequest("/else", { originalUrl: "/ops/status/else" }), other, next);
    expect(next).toHaveBeenCalledOnce();
    expect(other.statusCode).toBe(0);
    // A segment that looks like a scheme stays a relative path.
    const odd = response();
    await page.express(nodeRequest("/", { originalUrl: "/http:evil.example" }), odd);
    expect(odd.headers.location).toBe("./http%3Aevil.example/");
  });
});

describe("what the status page answers, word for word", () => {
  it("refuses to be built without a mirror, or with an authorize that is no function", async () => {
    expect(() => mirrorStatusPage(undefined as never)).toThrow(
      new TypeError("mirrorStatusPage needs an OrderMirror."),
    );
    expect(() => mirrorStatusPage({} as never)).toThrow("mirrorStatusPage needs an OrderMirror.");
    const h = await synced(1);
    expect(() => mirrorStatusPage(h.mirror, { authorize: "yes" as never })).toThrow(
      new TypeError("authorize must be a function (request) => boolean."),
    );
  });

  it("says why in each refusal and each bad request", async () => {
    const h = await synced(1);
    const page = mirrorStatusPage(h.mirror);
    const body = async (answer: Promise<Response>) => {
      const r = await answer;
      return [r.status, r.headers.get("content-type"), await r.json()];
    };
    const JSON_TYPE = "application/json; charset=utf-8";
    expect(await body(page.fetch(get("/", { method: "POST" }), onLoopback))).toEqual([
      405,
      JSON_TYPE,
      { error: "method_not_allowed", message: "The status page is read-only." },
    ]);
    expect(await body(page.fetch(get("/nothing"), onLoopback))).toEqual([
      404,
      JSON_TYPE,
      { error: "not_found", message: "No such page." },
    ]);
    expect(await body(page.fetch(get("/orders.json"), onLoopback))).toEqual([
      400,
      JSON_TYPE,
      {
        error: "query_required",
        message: "Give ?q= an order number, partner order id or status.",
      },
    ]);
    expect(await body(page.fetch(get(`/orders.json?q=${"9".repeat(201)}`), onLoopback))).toEqual([
      400,
      JSON_TYPE,
      { error: "query_too_long", message: "A query is at most 200 characters." },
    ]);
    expect(await body(page.fetch(get("/")))).toEqual([
      403,
      JSON_TYPE,
      {
        error: "loopback_only",
        message:
          "This status page serves only requests from this machine: give mirrorStatusPage an authorize function to serve others.",
      },
    ]);
    // A proxy's header, either one, makes a loopback request a forwarded one.
    for (const header of ["forwarded", "x-forwarded-for"]) {
      const proxied = get("/", { headers: { [header]: "for=192.0.2.1" } });
      expect((await page.fetch(proxied, onLoopback)).status, header).toBe(403);
    }
    const guarded = mirrorStatusPage(h.mirror, { authorize: () => false });
    expect(await body(guarded.fetch(get("/")))).toEqual([
      401,
      JSON_TYPE,
      { error: "unauthorized", message: "This status page needs credentials." },
    ]);
    expect(await body(guarded.fetch(get("/", { headers: { authorization: "x" } })))).toEqual([
      403,
      JSON_TYPE,
      { error: "forbidden", message: "These credentials may not see this page." },
    ]);
  });

  it("serves the page as HTML; a store it cannot read is logged with its code and a short message", async () => {
    const h = await synced(1);
    const page = mirrorStatusPage(h.mirror);
    expect((await page.fetch(get("/"), onLoopback)).headers.get("content-type")).toBe(
      "text/html; charset=utf-8",
    );
    h.overrides.dueStats = () =>
      Promise.reject(
        Object.assign(new Error(`x${"y".repeat(400)}`), { code: "store_unavailable" }),
      );
    const logger = { error: vi.fn() };
    const failing = mirrorStatusPage(h.mirror, { logger });
    const html = await failing.fetch(get("/"), onLoopback);
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(logger.error).toHaveBeenCalledWith("Status page could not read the mirror", {
      code: "store_unavailable",
      message: `x${"y".repeat(299)}`,
    });
  });

  it("opens at most 20 streams at once; a closed one makes room", async () => {
    const h = await synced(1);
    h.clock.park = true;
    const page = mirrorStatusPage(h.mirror);
    const open: Response[] = [];
    for (let i = 0; i < 20; i++) {
      const answer = await page.fetch(get("/events"), onLoopback);
      expect(answer.status).toBe(200);
      open.push(answer);
    }
    expect(await (await page.fetch(get("/events"), onLoopback)).json()).toEqual({
      error: "too_many_streams",
      message: "Too many open streams.",
    });
    page.close();
    await Promise.all(open.map((r) => r.text()));
    expect((await page.fetch(get("/events", { method: "HEAD" }), onLoopback)).status).toBe(200);
    const again = await page.fetch(get("/events"), onLoopback);
    expect(again.status).toBe(200);
    expect(again.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    page.close();
    await again.text();
  });

  it("ends a Fetch stream when the request is aborted, and a Node HEAD of the stream at once", async () => {
    const h = await synced(1);
    h.clock.park = true;
    const page = mirrorStatusPage(h.mirror);
    const abort = new AbortController();
    const answer = await page.fetch(get("/events", { signal: abort.signal }), onLoopback);
    const reading = answer.text();
    abort.abort();
    expect(await reading).toBe("retry: 3000\n\n");
    const head = response();
    await page.node(nodeRequest("/events", { method: "HEAD" }), head);
    expect([head.statusCode, head.chunks, head.ended]).toEqual([200, [], true]);
    expect(head.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(head.closed).toBeUndefined();
  });

  it("passes to next() only what it does not know, and logs an answer it could not write", async () => {
    const h = await synced(1);
    const logger = { error: vi.fn() };
    const page = mirrorStatusPage(h.mirror, { logger });
    const next = vi.fn();
    const known = response();
    await page.express(nodeRequest("/status.json"), known, next);
    expect(next).not.toHaveBeenCalled();
    expect(known.statusCode).toBe(200);
    const broken = response();
    broken.end = () => {
      throw new Error("socket gone");
    };
    await page.node(nodeRequest("/app.css"), broken);
    expect(logger.error).toHaveBeenCalledWith("Status page answer could not be written", {
      error: "socket gone",
    });
  });
});

describe("the change stream over Fetch", () => {
  it("resumes after the Last-Event-ID a reconnecting browser sends", async () => {
    const h = await synced(1);
    h.clock.park = true;
    const page = mirrorStatusPage(h.mirror);
    const answer = await page.fetch(
      get("/events", { headers: { "last-event-id": "0" } }),
      onLoopback,
    );
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes("event: change"))
      text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/^retry: 3000\n\nid: 1\nevent: change\n/);
    page.close();
    await reader.cancel();
  });
});
