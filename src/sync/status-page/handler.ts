import type { Clock } from "../../internal/clock";
import { codeOf, messageOf } from "../context";
import type { OrderMirror } from "../mirror";
import { clockOf, hasStore, storeOf } from "../registry";
import { readRequestHistory } from "../request-log";
import { servesWithoutAuthorize } from "./access";
import { APP_CSS, APP_JS } from "./assets";
import { streamChanges, streamStart } from "./events";
import { escapeHtml } from "./html";
import {
  addressesOf,
  decodeSafely,
  fromNode,
  json,
  type Outcome,
  type PageRequest,
  page,
  SECURITY_HEADERS,
} from "./http";
import { chartShapes, renderPage } from "./page";
import { QUERY_MAX, searchOrders } from "./search";
import type {
  MirrorStatusPage,
  MirrorStatusPageOptions,
  NodeStatusPageRequest,
  NodeStatusPageResponse,
} from "./types";
import { type PageStatus, redactUrls, statusView } from "./view";

/** Change streams open at once; more are answered 503. */
const MAX_STREAMS = 20;

/**
 * A read-only status page of `mirror` (README, "Operating the mirror"): health, open orders and due
 * lag, webhook health and the poll interval, consumers' lag, orders kept out, requests per hour
 * against a naive poller, the latest changes live and a search of stored orders. No endpoint
 * changes anything. Off loopback it refuses every request unless `authorize` is given.
 *
 * @example
 * const page = mirrorStatusPage(mirror, { authorize: (req) => isOperator(req) });
 * http.createServer(page.node).listen(8080);   // Express: app.use("/status", page.express)
 */
export function mirrorStatusPage(
  mirror: OrderMirror,
  options: MirrorStatusPageOptions = {},
): MirrorStatusPage {
  if (!mirror || !hasStore(mirror)) {
    throw new TypeError("mirrorStatusPage needs an OrderMirror.");
  }
  const { authorize } = options;
  if (authorize !== undefined && typeof authorize !== "function") {
    throw new TypeError("authorize must be a function (request) => boolean.");
  }
  const logger = options.logger ?? console;
  const clock = clockOf(mirror) as Clock;
  const streams = new Set<AbortController>();

  async function answer(request: PageRequest): Promise<Outcome> {
    const { method, url } = request;
    if (method !== "GET" && method !== "HEAD") {
      return json(
        405,
        { error: "method_not_allowed", message: "The status page is read-only." },
        {
          allow: "GET, HEAD",
        },
      );
    }
    const refused = await refusal(request);
    if (refused) return refused;
    try {
      switch (url.pathname) {
        case "/":
          return trailingSlash(request) ?? page("text/html; charset=utf-8", await renderHtml());
        case "/app.js":
          return page("text/javascript; charset=utf-8", APP_JS);
        case "/app.css":
          return page("text/css; charset=utf-8", APP_CSS);
        case "/favicon.ico":
          return { status: 204, headers: SECURITY_HEADERS, body: "" };
        case "/status.json": {
          // The chart's marks ride along, so the script redraws it without its own geometry.
          const current = await view();
          return json(200, { ...current, shapes: chartShapes(current.chart) });
        }
        case "/orders.json":
          return await search(url.searchParams.get("q"));
        case "/events":
          if (streams.size >= MAX_STREAMS) {
            return json(503, { error: "too_many_streams", message: "Too many open streams." });
          }
          return {
            status: 200,
            headers: { ...SECURITY_HEADERS, "content-type": "text/event-stream; charset=utf-8" },
            stream: await streamStart(await opened(), request.header("last-event-id") ?? null),
          };
      }
      return json(404, { error: "not_found", message: "No such page." });
    } catch (error) {
      const code = codeOf(error);
      const message = redactUrls(messageOf(error)).slice(0, 300);
      logger.error("Status page could not read the mirror", { code, message });
      if (url.pathname === "/") {
        return page(
          "text/html; charset=utf-8",
          `<!doctype html><title>Mirror status</title><h1>The mirror could not be read</h1><p>${escapeHtml(`${code}: ${message}`)}</p>`,
          503,
        );
      }
      return json(503, { error: code, message });
    }
  }

  /** Why the request is refused, or undefined when it is served. */
  async function refusal(request: PageRequest): Promise<Outcome | undefined> {
    if (!authorize) {
      if (servesWithoutAuthorize(request.addresses)) return undefined;
      return json(403, {
        error: "loopback_only",
        message:
          "This status page serves only requests from this machine: give mirrorStatusPage an authorize function to serve others.",
      });
    }
    let allowed = false;
    try {
      allowed = (await authorize(request.raw)) === true;
    } catch (error) {
      logger.error("Status page authorize threw; the request is refused", {
        error: messageOf(error),
      });
    }
    if (allowed) return undefined;
    return request.header("authorization") === undefined
      ? json(401, { error: "unauthorized", message: "This status page needs credentials." })
      : json(403, { error: "forbidden", message: "These credentials may not see this page." });
  }

  function opened() {
    return storeOf(mirror) as Promise<NonNullable<Awaited<ReturnType<typeof storeOf>>>>;
  }

  async function view() {
    const [status, history] = await Promise.all([
      mirror.status() as Promise<PageStatus>,
      opened().then(readRequestHistory),
    ]);
    return statusView(status, history);
  }

  async function renderHtml(): Promise<string> {
    return renderPage(await view()).toString();
  }

  async function search(q: string | null): Promise<Outcome> {
    const text = q?.trim() ?? "";
    if (!text) {
      return json(400, {
        error: "query_required",
        message: "Give ?q= an order number, partner order id or status.",
      });
    }
    if (text.length > QUERY_MAX) {
      return json(400, {
        error: "query_too_long",
        message: `A query is at most ${QUERY_MAX} characters.`,
      });
    }
    return json(200, await searchOrders(mirror, text));
  }

  /** Mounted under a path (Express `app.use("/status", ...)`), `/status` becomes `/status/`. */
  function trailingSlash(request: PageRequest): Outcome | undefined {
    const path = request.originalPath;
    if (path === undefined || path.endsWith("/")) return undefined;
    const last = path.slice(path.lastIndexOf("/") + 1);
    // Relative and starting with ./, so no segment can turn it into another host or scheme.
    const location = `./${encodeURIComponent(decodeSafely(last))}/${request.url.search}`;
    return { status: 308, headers: { ...SECURITY_HEADERS, location }, body: "" };
  }

  async function node(
    req: NodeStatusPageRequest,
    res: NodeStatusPageResponse,
    next?: (error?: unknown) => void,
  ): Promise<void> {
    const request = fromNode(req);
    const outcome = await answer(request);
    try {
      if (next && outcome.status === 404) return next();
      res.statusCode = outcome.status;
      for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
      if ("body" in outcome) {
        res.end(request.method === "HEAD" ? undefined : outcome.body);
        return;
      }
      if (request.method === "HEAD") {
        res.end();
        return;
      }
      res.flushHeaders?.();
      const stop = new AbortController();
      streams.add(stop);
      res.once("close", () => stop.abort());
      await streamChanges(
        await opened(),
        clock,
        outcome.stream,
        (text) => res.write(text),
        stop.signal,
      );
      streams.delete(stop);
      res.end();
    } catch (error) {
      logger.error("Status page answer could not be written", { error: messageOf(error) });
    }
  }

  async function fetchHandler(request: Request, ...context: unknown[]): Promise<Response> {
    const url = new URL(request.url);
    // Routed by the last segment: a Fetch framework passes the full path, whatever the page is
    // mounted under (`/ops/status/` is the page, `/ops/status/app.js` its script).
    const last = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    const outcome = await answer({
      method: request.method,
      url: new URL(`/${last}${url.search}`, "http://page.invalid"),
      originalPath: undefined,
      header: (name) => request.headers.get(name) ?? undefined,
      addresses: {
        ...addressesOf(context),
        host: request.headers.get("host") ?? url.host,
        forwarded: request.headers.has("forwarded") || request.headers.has("x-forwarded-for"),
      },
      raw: request,
    });
    if ("body" in outcome) {
      const empty = request.method === "HEAD" || outcome.body === "";
      const body = empty ? null : outcome.body;
      return new Response(body, { status: outcome.status, headers: outcome.headers });
    }
    if (request.method === "HEAD") return new Response(null, { headers: outcome.headers });
    const stop = new AbortController();
    const encoder = new TextEncoder();
    const store = await opened();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        streams.add(stop);
        request.signal?.addEventListener("abort", () => stop.abort(), { once: true });
        void streamChanges(
          store,
          clock,
          outcome.stream,
          (t) => controller.enqueue(encoder.encode(t)),
          stop.signal,
        )
          .catch(() => undefined)
          .finally(() => {
            streams.delete(stop);
            try {
              controller.close();
            } catch {
              // Already cancelled by the reader.
            }
          });
      },
      cancel() {
        stop.abort();
      },
    });
    return new Response(body, { headers: outcome.headers });
  }

  const handler = {
    node: (req: NodeStatusPageRequest, res: NodeStatusPageResponse) => node(req, res),
    express: node,
    fetch: fetchHandler,
    close() {
      for (const stop of streams) stop.abort();
      streams.clear();
    },
  };
  return Object.assign(
    (first: Request & NodeStatusPageRequest, ...rest: [NodeStatusPageResponse]) =>
      typeof (first?.headers as Headers | undefined)?.get === "function"
        ? handler.fetch(first, ...rest)
        : handler.node(first, ...rest),
    handler,
  ) as MirrorStatusPage;
}
