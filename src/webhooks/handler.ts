import { WebhookVerificationError } from "../core/errors";
import { notRawBodyMessage, rawBodyBytes } from "./body";
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
  /** A failure: `onEvent` threw, the dedupe store failed, or the answer could not be written. */
  error(message: string, details?: Record<string, unknown>): void;
  /** A refused delivery (400), with its `reason`. Optional: without it refusals are not logged. */
  warn?(message: string, details?: Record<string, unknown>): void;
}

/**
 * Options of {@link createWebhookHandler}. Only `onEvent` is required; `secret` should be given
 * whenever the endpoint was registered with one.
 */
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
  /** Where failures and refused deliveries are reported. @default console */
  logger?: WebhookLogger;
  /**
   * How far the signature's `t` may be from this machine's clock, in the past or the future, in
   * seconds (API document, "Signing", rule 2).
   * @default 300
   */
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
  /** Anything but `POST` is answered 405. */
  method?: string | undefined;
  /** Node's `req.headers`; `Platform-Signature` is read from it. */
  headers: WebhookHeaders;
  /** Set by a body parser: a raw Buffer/string is used; a parsed object is refused. */
  body?: unknown;
  /** A raw body some frameworks and plugins keep beside a parsed one. */
  rawBody?: unknown;
  /**
   * True once the stream was consumed: with no raw body kept, the delivery is answered 400
   * `raw_body_required`, because the signature cannot be checked without the raw bytes.
   */
  readableEnded?: boolean;
  /**
   * Reads the body stream when no raw body was kept. One overload per event the handler listens
   * to, with the arguments Node passes, so that Node's own `on` fits both as `@types/node` 24 and
   * earlier type it (an overload per event) and as 25 and later do (a generic event map, then an
   * `(...args: any[])` fallback, which a listener of `never` arguments would not fit).
   */
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  /** The stream ended (`end`) or was torn down (`close`). */
  on(event: "end" | "close", listener: () => void): unknown;
  /** The stream failed. */
  on(event: "error", listener: (error: Error) => void): unknown;
  /** Part of Node's request; optional, and not called by the handler. */
  resume?(): unknown;
}

/** The parts of a Node `ServerResponse` the handler writes. */
export interface NodeWebhookResponse {
  /** Set to the answer's status: 200, 400, 405, 413, or 500 when the handler itself failed. */
  statusCode: number;
  /**
   * Part of Node's response; optional, and not read by the handler: a write after something else
   * already answered is caught and logged instead.
   */
  headersSent?: boolean;
  /** Sets `content-type: application/json` (and `allow: POST` on a 405). */
  setHeader(name: string, value: string): unknown;
  /** Ends the response with the JSON answer: `{ "received": true }` or `{ error, message }`. */
  end(body: string): unknown;
}

/**
 * The handler is itself usable as a Node `(req, res)` handler and as a Fetch `(Request) => Response`
 * handler (README, "Webhooks"): a call whose first argument has `headers.get` is a Fetch request.
 * `.node` and `.fetch` are the same two, for code that prefers to name one.
 */
export interface WebhookHandler {
  (req: NodeWebhookRequest, res: NodeWebhookResponse): Promise<void>;
  (request: Request, ...context: unknown[]): Promise<Response>;
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

/** What the handler answers. */
interface Outcome {
  status: number;
  body: Record<string, unknown>;
}

/** A host that keeps the runtime alive for pending work: a Cloudflare `ctx`, or the options. */
interface WaitUntilHost {
  waitUntil?(promise: Promise<unknown>): void;
}

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
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  if (!(maxBodyBytes > 0)) throw new RangeError("maxBodyBytes must be a positive number of bytes.");
  const tooLarge = refuse(413, "payload_too_large", `The body is over ${maxBodyBytes} bytes.`);
  const logger = options.logger ?? console;
  const { dedupe } = options;
  const store =
    dedupe === false ? undefined : typeof dedupe === "object" ? dedupe : createMemoryDedupeStore();
  if (store && typeof store.claim !== "function") {
    throw new TypeError("dedupe must be true, false or a store with claim(eventId).");
  }
  const inFlight = new Set<Promise<void>>();

  /**
   * The one core both adapters share: method, headers and a body reader in, answer out. Never
   * rejects: what is not a refusal is a logged 500.
   */
  async function answer(
    method: string | undefined,
    headers: WebhookHeaders,
    read: () => Uint8Array | Outcome | Promise<Uint8Array | Outcome>,
    host: WaitUntilHost = options,
  ): Promise<Outcome> {
    try {
      if (method !== "POST") {
        return refuse(405, "method_not_allowed", "Webhooks are delivered with POST.");
      }
      const body = await read();
      if (!(body instanceof Uint8Array)) return body;
      const event = secrets
        ? await verifyWebhook({ body, headers, secret: secrets, toleranceSeconds })
        : decodeEvent(body);
      // A test event is verified above, then discarded (API document, "Synthetic test event").
      if (isTestEvent(event)) return { status: 200, body: { received: true, test: true } };
      schedule(event, host);
      return { status: 200, body: { received: true } };
    } catch (error) {
      if (error instanceof WebhookVerificationError || error instanceof WebhookPayloadError) {
        logger.warn?.("Webhook delivery refused", { reason: error.reason, message: error.message });
        return refuse(400, error.reason, error.message);
      }
      logger.error("Webhook handler failed", { error });
      return refuse(500, "internal_error", "The webhook could not be handled.");
    }
  }

  /**
   * Runs the event on a later task, so the answer is on its way first, and hands that work to
   * `host.waitUntil` on platforms that stop at the response.
   */
  function schedule(event: WebhookEvent, host: WaitUntilHost): void {
    const task: Promise<void> = new Promise((resolve) => setTimeout(resolve, 0))
      .then(() => dispatch(event))
      // dispatch only rejects when the logger itself throws; nothing is left to report it to.
      .catch(() => undefined)
      .then(() => void inFlight.delete(task));
    inFlight.add(task);
    try {
      host.waitUntil?.(task);
    } catch (error) {
      logger.error("Webhook waitUntil failed", { error });
    }
  }

  /** After the answer: dedupe, then the partner's code. */
  async function dispatch(event: WebhookEvent): Promise<void> {
    const { eventId } = event;
    let claimed = false;
    if (store) {
      try {
        if (!(await store.claim(eventId))) return;
        claimed = true;
      } catch (error) {
        // Handling twice beats losing the event: there is no redelivery (Events rule 2).
        logger.error("Webhook dedupe store failed; handling the event anyway", { eventId, error });
      }
    }
    try {
      await (isKnownWebhookEvent(event)
        ? options.onEvent(event)
        : options.onUnknownEvent?.(event as UnknownWebhookEvent));
    } catch (error) {
      logger.error("Webhook onEvent failed", { eventId, type: event.type, error });
      // Lets a duplicate of this delivery, should one come, try again.
      if (claimed) {
        await store
          ?.release?.(eventId)
          .catch((error: unknown) =>
            logger.error("Webhook dedupe store failed to release an event", { eventId, error }),
          );
      }
    }
  }

  /**
   * The raw body of a Node request: one a framework already kept (`req.rawBody`, or a Buffer/string
   * `req.body` from `express.raw()`/`express.text()`), else the stream itself, up to the limit.
   * A parsed `req.body` means the raw bytes are gone and the signature cannot be checked.
   */
  function readNodeBody(
    req: NodeWebhookRequest,
  ): Uint8Array | Outcome | Promise<Uint8Array | Outcome> {
    const kept = rawBodyBytes(req.rawBody) ?? rawBodyBytes(req.body);
    if (kept) return kept.length > maxBodyBytes ? tooLarge : kept;
    // Express 4's JSON parser leaves `{}` on requests it skipped, with the stream still unread.
    if (req.readableEnded || (typeof req.body === "object" && Object.keys(req.body ?? {}).length)) {
      return refuse(400, "raw_body_required", notRawBodyMessage(req.body));
    }
    return new Promise((resolve, reject) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      req.on("data", (chunk: Uint8Array | string) => {
        const bytes = rawBodyBytes(chunk) as Uint8Array;
        size += bytes.length;
        // Over the limit: answer 413 now, and keep draining without keeping so the connection
        // stays usable (later settlements of this promise are no-ops).
        if (size > maxBodyBytes) resolve(tooLarge);
        else chunks.push(bytes);
      });
      req.on("end", () => resolve(concat(chunks)));
      req.on("error", reject);
      req.on("close", () => reject(new Error("The request closed before its body ended.")));
    });
  }

  /** The body of a Fetch request, read chunk by chunk so an oversized one is never held whole. */
  async function readFetchBody(request: Request): Promise<Uint8Array | Outcome> {
    const reader = request.body?.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = (await reader?.read()) ?? { done: true };
      if (done) return concat(chunks);
      size += value.length;
      if (size > maxBodyBytes) {
        reader?.cancel().catch(() => undefined);
        return tooLarge;
      }
      chunks.push(value);
    }
  }

  const handler: Pick<WebhookHandler, "node" | "fetch" | "idle"> = {
    async node(req, res) {
      const outcome = await answer(req.method, req.headers, () => readNodeBody(req));
      try {
        // Throws if something else already answered; logged below rather than rejected.
        res.statusCode = outcome.status;
        for (const [name, value] of Object.entries(headersOf(outcome))) res.setHeader(name, value);
        res.end(JSON.stringify(outcome.body));
      } catch (error) {
        logger.error("Webhook answer could not be written", { error });
      }
    },
    async fetch(request, ...context) {
      // A Cloudflare-style `ctx` (its waitUntil needs `this`) comes among the later arguments.
      const ctx = context.find(
        (item) => typeof (item as WaitUntilHost | null)?.waitUntil === "function",
      ) as WaitUntilHost | undefined;
      const outcome = await answer(
        request.method,
        request.headers,
        () => readFetchBody(request),
        ctx,
      );
      return new Response(JSON.stringify(outcome.body), {
        status: outcome.status,
        headers: headersOf(outcome),
      });
    },
    async idle() {
      while (inFlight.size) await Promise.all(inFlight);
    },
  };
  return Object.assign(
    (first: Request & NodeWebhookRequest, ...rest: [NodeWebhookResponse]) =>
      typeof first?.headers?.get === "function"
        ? handler.fetch(first, ...rest)
        : handler.node(first, ...rest),
    handler,
  ) as WebhookHandler;
}

function refuse(status: number, error: string, message: string): Outcome {
  return { status, body: { error, message } };
}

/** JSON answers; a 405 names the one method webhooks use. */
function headersOf({ status }: Outcome): Record<string, string> {
  return { "content-type": "application/json", ...(status === 405 && { allow: "POST" }) };
}

async function concat(chunks: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer());
}
