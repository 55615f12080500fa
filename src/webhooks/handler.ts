import { WebhookVerificationError } from "../core/errors";
import { concatBytes, notRawBodyMessage, rawBodyBytes } from "./body";
import { createMemoryDedupeStore, type DedupeStore } from "./dedupe";
import {
  decodeEvent,
  isKnownWebhookEvent,
  isTestEvent,
  type KnownWebhookEvent,
  type UnknownWebhookEvent,
  type WebhookEvent,
  WebhookPayloadError,
} from "./events";
import { checkSecrets, checkTolerance, verifyWebhook, type WebhookHeaders } from "./verify";

/** Where the handler reports what it cannot answer with: `console` fits. Never given a secret. */
export interface WebhookLogger {
  error(message: string, details?: Record<string, unknown>): void;
  warn?(message: string, details?: Record<string, unknown>): void;
}

export interface WebhookHandlerOptions {
  /**
   * The endpoint's signing secret (a list while rotating). Without one, deliveries are parsed but
   * not verified: only for endpoints registered without a secret.
   */
  secret?: string | readonly string[];
  /**
   * Runs after the answer was sent, once per `eventId`, for the four known types. Re-read what the
   * event names here (API document, Events rule 1). A throw is logged; the answer is already sent.
   */
  onEvent(event: KnownWebhookEvent): void | Promise<void>;
  /**
   * Runs like `onEvent` for types this SDK version does not know. Unknown types are ignored by
   * default (API document, Events rule 5).
   */
  onUnknownEvent?(event: UnknownWebhookEvent): void | Promise<void>;
  /**
   * Dedupe by `eventId` (API document, Events rule 4): `true` for an in-memory store, `false` for
   * none, or a shared store such as `createRedisDedupeStore(client)` when several instances receive.
   * @default true
   */
  dedupe?: boolean | DedupeStore;
  /** @default console */
  logger?: WebhookLogger;
  /** @default 300 */
  toleranceSeconds?: number;
  /**
   * Larger bodies are answered 413 (an event is a few hundred bytes).
   * @default 1048576 (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * Keeps the runtime alive for the work done after the answer, on platforms that stop at the
   * response (Vercel's `waitUntil`, Next.js `after`). A Cloudflare Workers `ctx` passed as a later
   * argument of `handler.fetch` is used on its own.
   */
  waitUntil?(promise: Promise<unknown>): void;
}

/** The parts of a Node `IncomingMessage` (or an Express/Fastify request) the handler reads. */
export interface NodeWebhookRequest {
  method?: string | undefined;
  headers: WebhookHeaders;
  /** Set by a body parser: a raw Buffer/string is used; a parsed object is refused. */
  body?: unknown;
  /** A raw body some frameworks and plugins keep beside a parsed one. */
  rawBody?: unknown;
  readableEnded?: boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  resume?(): unknown;
}

/** The parts of a Node `ServerResponse` the handler writes. */
export interface NodeWebhookResponse {
  statusCode: number;
  headersSent?: boolean;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

export interface WebhookHandler {
  /** `(req, res)` for `http.createServer`, Express, Connect. Never rejects. */
  node(req: NodeWebhookRequest, res: NodeWebhookResponse): Promise<void>;
  /**
   * `(Request) => Promise<Response>` for Hono, Next.js route handlers, Deno, Bun and workers. Never
   * rejects. Extra arguments are scanned for a Cloudflare-style `ctx` with `waitUntil`.
   */
  fetch(request: Request, ...context: unknown[]): Promise<Response>;
  /** Resolves when every event accepted so far has been handled: for graceful shutdown and tests. */
  idle(): Promise<void>;
}

/** What the handler answers and what it does afterwards. */
interface Outcome {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  event?: WebhookEvent;
}

const MIB = 1024 * 1024;

/**
 * A webhook endpoint: verifies (or, without a secret, parses) each delivery, answers 200 at once,
 * then runs `onEvent`, because a delivery not answered within 5 seconds is lost for good (API
 * document, Events rule 2). Test events are verified and discarded, duplicates are skipped.
 *
 * Answers: 200 accepted; 400 refused signature or a body that is not an event; 405 not POST;
 * 413 body over `maxBodyBytes`.
 *
 * @example
 * const webhooks = createWebhookHandler({ secret: process.env.WEBHOOK_SECRET, onEvent });
 * http.createServer(webhooks.node);       // Node, Express: app.post("/webhooks", webhooks.node)
 * export const POST = webhooks.fetch;     // Next.js route handler, Hono, workers
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const secrets = options.secret === undefined ? undefined : checkSecrets(options.secret);
  const toleranceSeconds = checkTolerance(options.toleranceSeconds);
  if (typeof options.onEvent !== "function") {
    throw new TypeError("createWebhookHandler needs an onEvent(event) function.");
  }
  const maxBodyBytes = options.maxBodyBytes ?? MIB;
  if (!(maxBodyBytes > 0)) throw new RangeError("maxBodyBytes must be a positive number of bytes.");
  const logger = options.logger ?? console;
  const store = dedupeStore(options.dedupe);
  const inFlight = new Set<Promise<void>>();

  /** The one core both adapters share: body bytes in, answer out. */
  async function decide(headers: WebhookHeaders, body: Uint8Array): Promise<Outcome> {
    let event: WebhookEvent;
    try {
      event = secrets
        ? await verifyWebhook({ body, headers, secret: secrets, toleranceSeconds })
        : decodeEvent(body);
    } catch (error) {
      if (error instanceof WebhookVerificationError || error instanceof WebhookPayloadError) {
        logger.warn?.("Webhook delivery refused", { reason: error.reason, message: error.message });
        return refuse(400, error.reason, error.message);
      }
      throw error;
    }
    // A test event is verified above, then discarded (API document, "Synthetic test event").
    if (isTestEvent(event)) return { status: 200, body: { received: true, test: true } };
    return { status: 200, body: { received: true }, event };
  }

  /** After the answer: dedupe, then the partner's code. Never rejects. */
  async function dispatch(event: WebhookEvent): Promise<void> {
    let claimed = false;
    if (store) {
      try {
        if (!(await store.claim(event.eventId))) return;
        claimed = true;
      } catch (error) {
        // Handling twice beats losing the event: there is no redelivery (Events rule 2).
        logger.error("Webhook dedupe store failed; handling the event anyway", {
          eventId: event.eventId,
          error,
        });
      }
    }
    try {
      if (isKnownWebhookEvent(event)) await options.onEvent(event);
      else await options.onUnknownEvent?.(event as UnknownWebhookEvent);
    } catch (error) {
      logger.error("Webhook onEvent failed", { eventId: event.eventId, type: event.type, error });
      if (claimed) {
        // Lets a duplicate of this delivery, should one come, try again.
        await store?.release?.(event.eventId).catch((releaseError: unknown) =>
          logger.error("Webhook dedupe store failed to release an event", {
            eventId: event.eventId,
            error: releaseError,
          }),
        );
      }
    }
  }

  /** Starts `dispatch` on a later task, so the answer is on its way first. */
  function schedule(event: WebhookEvent | undefined, waitUntil?: (p: Promise<unknown>) => void) {
    if (!event) return;
    const task = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => dispatch(event))
      // dispatch only rejects when the logger itself throws; nothing is left to report it to.
      .catch(() => undefined);
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
    try {
      (waitUntil ?? options.waitUntil)?.(task);
    } catch (error) {
      logger.error("Webhook waitUntil failed", { error });
    }
  }

  async function node(req: NodeWebhookRequest, res: NodeWebhookResponse): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await nodeOutcome(req);
    } catch (error) {
      logger.error("Webhook handler failed", { error });
      outcome = refuse(500, "internal_error", "The webhook could not be handled.");
    }
    try {
      if (!res.headersSent) {
        res.statusCode = outcome.status;
        res.setHeader("content-type", "application/json");
        for (const [name, value] of Object.entries(outcome.headers ?? {}))
          res.setHeader(name, value);
        res.end(JSON.stringify(outcome.body));
      }
    } catch (error) {
      logger.error("Webhook answer could not be written", { error });
    }
    schedule(outcome.event);
  }

  async function nodeOutcome(req: NodeWebhookRequest): Promise<Outcome> {
    if (req.method !== "POST") {
      req.resume?.();
      return methodNotAllowed();
    }
    const body = await readNodeBody(req, maxBodyBytes);
    if (body === "too_large") return tooLarge(maxBodyBytes);
    if (body === "parsed") return refuse(400, "raw_body_required", notRawBodyMessage(req.body));
    return decide(req.headers, body);
  }

  async function fetchAdapter(request: Request, ...context: unknown[]): Promise<Response> {
    let outcome: Outcome;
    try {
      if (request.method !== "POST") outcome = methodNotAllowed();
      else {
        const body = await readFetchBody(request, maxBodyBytes);
        outcome =
          body === "too_large" ? tooLarge(maxBodyBytes) : await decide(request.headers, body);
      }
    } catch (error) {
      logger.error("Webhook handler failed", { error });
      outcome = refuse(500, "internal_error", "The webhook could not be handled.");
    }
    schedule(outcome.event, waitUntilOf(context));
    return new Response(JSON.stringify(outcome.body), {
      status: outcome.status,
      headers: { "content-type": "application/json", ...outcome.headers },
    });
  }

  async function idle(): Promise<void> {
    while (inFlight.size > 0) await Promise.all(inFlight);
  }

  return { node, fetch: fetchAdapter, idle };
}

function dedupeStore(dedupe: boolean | DedupeStore | undefined): DedupeStore | undefined {
  if (dedupe === false) return undefined;
  if (dedupe === undefined || dedupe === true) return createMemoryDedupeStore();
  if (typeof dedupe.claim !== "function") {
    throw new TypeError("dedupe must be true, false or a store with claim(eventId).");
  }
  return dedupe;
}

function refuse(status: number, error: string, message: string): Outcome {
  return { status, body: { error, message } };
}

function methodNotAllowed(): Outcome {
  return {
    ...refuse(405, "method_not_allowed", "Webhooks are delivered with POST."),
    headers: { allow: "POST" },
  };
}

function tooLarge(limit: number): Outcome {
  return refuse(413, "payload_too_large", `The body is larger than ${limit} bytes.`);
}

/** A declared length over the limit is refused before anything is read. */
function declaredTooLarge(length: string | readonly string[] | null | undefined, limit: number) {
  const value = typeof length === "string" ? Number(length) : Number.NaN;
  return Number.isFinite(value) && value > limit;
}

/**
 * The raw body of a Node request: one a framework already kept (`req.rawBody`, or a Buffer/string
 * `req.body` from `express.raw()`/`express.text()`), else the stream itself, up to `limit` bytes.
 * A parsed `req.body` means the raw bytes are gone and the signature cannot be checked.
 */
async function readNodeBody(
  req: NodeWebhookRequest,
  limit: number,
): Promise<Uint8Array | "too_large" | "parsed"> {
  const kept = rawBodyBytes(req.rawBody) ?? rawBodyBytes(req.body);
  if (kept) return kept.length > limit ? "too_large" : kept;
  const parsed = typeof req.body === "object" && req.body !== null;
  // Express 4's JSON parser leaves `{}` on requests it skipped, with the stream still unread.
  const skipped = parsed && Object.keys(req.body as object).length === 0 && !req.readableEnded;
  if ((parsed && !skipped) || req.readableEnded) return "parsed";

  const headers = req.headers as Record<string, string | readonly string[] | undefined>;
  if (declaredTooLarge(headers["content-length"], limit)) {
    req.resume?.();
    return "too_large";
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let over = false;
    let ended = false;
    req.on("data", (chunk: Uint8Array | string) => {
      const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
      size += bytes.length;
      // Keep draining without keeping, so the 413 can still be written on this connection.
      if (over || size > limit) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(bytes);
    });
    req.on("end", () => {
      ended = true;
      resolve(over ? "too_large" : concatBytes(chunks, size));
    });
    req.on("error", (error: unknown) => reject(error));
    req.on("close", () => {
      if (!ended) reject(new Error("The request was closed before its body ended."));
    });
  });
}

/** The body of a Fetch request, read chunk by chunk so an oversized one is never held whole. */
async function readFetchBody(request: Request, limit: number): Promise<Uint8Array | "too_large"> {
  if (declaredTooLarge(request.headers.get("content-length"), limit)) return "too_large";
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concatBytes(chunks, size);
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return "too_large";
    }
    chunks.push(value);
  }
}

function waitUntilOf(context: unknown[]): ((promise: Promise<unknown>) => void) | undefined {
  for (const item of context) {
    const candidate = item as { waitUntil?: unknown } | null;
    if (
      typeof candidate === "object" &&
      candidate !== null &&
      typeof candidate.waitUntil === "function"
    ) {
      return (promise) =>
        (candidate.waitUntil as (p: Promise<unknown>) => void).call(candidate, promise);
    }
  }
  return undefined;
}
