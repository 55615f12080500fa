import { type APIPromise, mapResult } from "./core/api-promise";
import { ClientCredentialsTokenSource, ProvidedTokenSource } from "./core/auth";
import { PartnerOrdersError, RequestValidationError } from "./core/errors";
import { gateAttempts } from "./core/http/gate";
import type { TelemetrySlot } from "./core/http/hooks";
import { nodeWire } from "./core/http/node-wire";
import { operation } from "./core/http/operation";
import { Http, type TokenSource } from "./core/http/request";
import { fetchWire, type Wire } from "./core/http/wire";
import { type ClientLog, createLog, type Log, resolveLog } from "./core/logger";
import type { McpClient } from "./core/mcp-client";
import type {
  Order,
  OrderItem,
  OrderRequest,
  Principal,
  Shipment,
  Submission,
} from "./core/models";
import { type MtlsCertificateInfo, MtlsConnection } from "./core/mtls";
import {
  type ClientOptions,
  type ClientOverrides,
  checkOverrides,
  env,
  type MtlsOptions,
  type RequestOptions,
  type ResolvedOptions,
  resolveOptions,
  resolveTuning,
} from "./core/options";
import { SubmissionWaiter, type WaitOptions } from "./core/polling";
import { telemetrySlot } from "./core/telemetry-load";
import { userAgent } from "./core/user-agent";
import { type Clock, systemClock } from "./internal/clock";
import { collect } from "./internal/collect";
import { attachHttp } from "./internal/http-access";
import { attachMcpAccess, type McpAccess } from "./internal/mcp-access";
import { createMcpFetch } from "./internal/mcp-fetch";
import { Orders, submitOperation } from "./resources/orders";
import { Products } from "./resources/products";
import { Sites } from "./resources/sites";
import { getSubmission, Submissions } from "./resources/submissions";
import {
  eventParts,
  isTestEvent,
  type OrderLineCancelledEvent,
  type OrderStatusChangedEvent,
  type ShipmentCancelledEvent,
  type ShipmentShippedEvent,
  type WebhookEvent,
} from "./webhooks/events";

/**
 * The Partner Order Service client.
 *
 * @example
 * const client = new PartnerOrders({ baseUrl, clientId, clientSecret, scopes: ["orders:read"] });
 * for await (const order of client.orders.list({ siteId: 12 })) console.log(order.totals.order);
 */
export class PartnerOrders {
  /** Orders, their items and shipments; submitting an order. */
  readonly orders: Orders;
  /** Submissions this partner created; waiting for one to finish. */
  readonly submissions: Submissions;
  /** The orderable catalog and price quotes. */
  readonly products: Products;
  /** The granted sites. */
  readonly sites: Sites;

  readonly #options: ResolvedOptions;
  readonly #http: Http;
  readonly #clock: Clock;
  readonly #log: ClientLog;
  readonly #connection: Connection;
  /** The one waiter behind `submitOrderAndWait` and `submissions.wait`. */
  readonly #waiter: SubmissionWaiter;
  readonly #mcpAccess: McpAccess;
  #mcp: Promise<McpClient> | undefined;

  /**
   * Checks the options at once (a missing credential or an `http:` URL to a non-loopback host
   * throws {@link PartnerOrdersError} here), then sends nothing until the first call.
   */
  constructor(options?: ClientOptions);
  /** @internal `withOptions()`: the parts a derived client shares with its parent. */
  constructor(options: ClientOptions, parts: ClientParts);
  constructor(options: ClientOptions = {}, parts?: ClientParts) {
    const own = parts && derived.has(parts) ? parts : PartnerOrders.#assemble(options);
    this.#options = own.options;
    this.#clock = own.clock;
    this.#log = own.log;
    this.#connection = own.connection;
    const { wire, tokens, telemetry } = this.#connection;
    const { clock, log } = own;
    const { rateLimitGate, retry } = own.options;
    this.#http = new Http({
      wire,
      agent: userAgent(),
      base: baseOf(own.options),
      tokens,
      clock,
      log,
      maxRetries: own.options.maxRetries,
      retry,
      budget: retry.budget ? own.options.retryBudget : undefined,
      timeoutMs: own.options.timeoutMs,
      headers: own.options.defaultHeaders,
      around: rateLimitGate && gateAttempts(rateLimitGate, clock, log, retry),
      telemetry,
    });
    this.orders = new Orders(this.#http, this.#log, this.#clock);
    this.#waiter = new SubmissionWaiter({
      http: this.#http,
      clock: this.#clock,
      baseUrl: this.#options.baseUrl,
      // Blanks the secrets the client knows out of server text placed in a message: no secret may
      // reach an error, a message or a log line, even when the server echoes one back.
      redact: tokens ? (text) => tokens.redact(text) : (text) => text,
      getSubmission,
    });
    this.submissions = new Submissions(this.#http, this.#waiter);
    this.products = new Products(this.#http);
    this.sites = new Sites(this.#http);
    // partner-orders/sync reads its list pages through this client's own request path.
    attachHttp(this, this.#http);
    // partner-orders/mcp reaches the same fetch and token cache through a symbol, not a public field.
    this.#mcpAccess = attachMcpAccess(
      this,
      this.#options.baseUrl,
      createMcpFetch(this.#http, own.options.defaultHeaders),
    );
  }

  /** The API root this client talks to (`baseUrl`, or `PARTNER_ORDERS_BASE_URL`). */
  get baseUrl(): string {
    const { origin, pathname } = this.#options.baseUrl;
    return `${origin}${pathname.replace(/\/+$/, "")}`;
  }

  /**
   * A client with some options changed that shares this one's connection: the same `fetch` (or
   * client certificate), the same credential and the same token cache, so tokens are requested once
   * for both (one request in flight at a time). Options not given keep this client's values;
   * `defaultHeaders` given are added to this client's. This client is left as it is.
   *
   * @example
   * const background = client.withOptions({ maxRetries: 5, timeoutMs: 60_000, logLevel: "info" });
   */
  withOptions(overrides: ClientOverrides): PartnerOrders {
    checkOverrides(overrides);
    return PartnerOrders.#derive(this, overrides);
  }

  /** A new client's parts, from its options alone. */
  static #assemble(options: ClientOptions): ClientParts {
    const resolved = resolveOptions(options);
    const clock = options.clock ?? systemClock;
    const log = resolveLog(options.logger, options.logLevel, env("PARTNER_ORDERS_LOG"));
    const mtls = resolved.mtls && new MtlsConnection(resolved.mtls, clock, log);
    const wire = createWire(options, mtls);
    const telemetry = telemetrySlot(options.telemetry, {
      clock,
      baseUrl: resolved.baseUrl,
      budget: resolved.retryBudget,
    });
    // The token request is shared by the clients withOptions() makes: it keeps this client's bounds.
    const tokenHttp = new Http({
      wire,
      agent: userAgent(),
      base: baseOf(resolved),
      tokens: undefined,
      clock,
      log,
      maxRetries: 0,
      retry: resolved.retry,
      budget: undefined,
      timeoutMs: resolved.timeoutMs,
      headers: {},
      telemetry,
    });
    const tokens = createTokenSource(resolved, tokenHttp, clock, log);
    return { options: resolved, clock, log, connection: { mtls, wire, tokens, telemetry } };
  }

  /** `withOptions()`: the parent's connection, credential and token cache, some options changed. */
  static #derive(parent: PartnerOrders, overrides: ClientOverrides): PartnerOrders {
    const log =
      overrides.logger === undefined && overrides.logLevel === undefined
        ? parent.#log
        : createLog(
            overrides.logger ?? parent.#log.logger,
            overrides.logLevel ?? parent.#log.level,
          );
    const parts: ClientParts = {
      options: { ...parent.#options, ...resolveTuning(overrides, parent.#options) },
      clock: parent.#clock,
      log,
      connection: parent.#connection,
    };
    derived.add(parts);
    return new PartnerOrders(overrides, parts);
  }

  /**
   * The MCP endpoint (POST /v1/mcp) as a connected client of the official MCP SDK, authenticated
   * like this client (same token cache, same retries). Connected on first use and then shared;
   * `partner-orders/mcp`'s `connectMcp(client)` gives a client of your own. Needs the optional peer
   * `@modelcontextprotocol/sdk` at run time only: typed as {@link McpClient}, the SDK members the
   * service's tools use, so compiling against the root never needs the SDK's declarations.
   *
   * @example
   * const mcp = await client.mcp;
   * const { tools } = await mcp.listTools();
   */
  get mcp(): Promise<McpClient> {
    if (!this.#mcp) {
      const access = this.#mcpAccess;
      const connecting = import("./internal/mcp-connect").then((m) => m.connectWithAccess(access));
      // A failed connection is not kept: the next use tries again.
      connecting.catch(() => {
        if (this.#mcp === connecting) this.#mcp = undefined;
      });
      this.#mcp = connecting;
    }
    return this.#mcp;
  }

  /**
   * Replaces the mutual-TLS client certificate of a live client, without a restart. The new
   * certificate is checked first (as `checkMtlsCertificate` does); if it fails, the one in use
   * stays in use and the returned promise rejects with an `MtlsCertificateError`. Requests already
   * under way finish on the old certificate. Register the new certificate with the service before
   * switching (API document, Mutual TLS: both can be live at once).
   *
   * @example
   * await client.setMtlsCertificate({ cert: newCertPem, key: newKeyPem });
   */
  setMtlsCertificate(material: MtlsOptions): Promise<MtlsCertificateInfo> {
    const { mtls } = this.#connection;
    if (!mtls) {
      return Promise.reject(
        new PartnerOrdersError("setMtlsCertificate() needs a client created with { mtls }."),
      );
    }
    return mtls.replace(material);
  }

  /** The credential's partner, granted sites, auth method and effective scopes. A good first call. */
  me(options?: RequestOptions): APIPromise<Principal> {
    return this.#http.call(operation("getMe", {}), options);
  }

  /** Liveness of the service; resolves when it answers 2xx, throws otherwise. */
  ping(options?: RequestOptions): APIPromise<void> {
    return mapResult(
      this.#http.call(operation("ping", {}, { auth: false, decode: false }), options),
      () => undefined,
    );
  }

  /**
   * Submits an order and waits until it is `completed` or `failed` (returned, not thrown), polling
   * the `Location` the service gave as often as its `Retry-After` says. A lost connection or a 5xx
   * on the POST is retried with identical bytes, which the service answers with the original
   * submission, so one call never creates two orders. `timeoutMs` bounds the whole wait; past it,
   * {@link SubmissionTimeoutError} carries the last state and the id to resume with
   * `client.submissions.wait(id)`. `.withResponse()` gives the terminal submission with the HTTP
   * response it came from.
   */
  submitOrderAndWait(request: OrderRequest, options: WaitOptions = {}): APIPromise<Submission> {
    return this.#waiter.wait(submitOperation(request), options);
  }

  /**
   * Re-reads what a webhook event names (API document, Events): the `Order` for
   * `order.status_changed`, every `Shipment` (all pages) for the shipment events, every `OrderItem`
   * (all pages) for `order_line.cancelled`; `null` for test events and types this version does not know.
   */
  refetch(event: OrderStatusChangedEvent, options?: RequestOptions): Promise<Order>;
  refetch(
    event: ShipmentShippedEvent | ShipmentCancelledEvent,
    options?: RequestOptions,
  ): Promise<Shipment[]>;
  refetch(event: OrderLineCancelledEvent, options?: RequestOptions): Promise<OrderItem[]>;
  refetch(
    event: WebhookEvent,
    options?: RequestOptions,
  ): Promise<Order | Shipment[] | OrderItem[] | null>;
  async refetch(
    event: WebhookEvent,
    options?: RequestOptions,
  ): Promise<Order | Shipment[] | OrderItem[] | null> {
    // Called from JavaScript, or with a body that was never verified: a typed error, not a TypeError.
    const shape = event as unknown as Record<string, unknown> | null | undefined;
    if (
      typeof shape !== "object" ||
      shape === null ||
      Array.isArray(shape) ||
      typeof shape.type !== "string" ||
      typeof shape.eventId !== "string"
    ) {
      throw new RequestValidationError(
        [
          {
            path: "",
            message:
              "must be a webhook event (from verifyWebhook or parseWebhook), with a string type and eventId",
          },
        ],
        "webhook event",
      );
    }
    const parts = isTestEvent(event) ? undefined : eventParts(event.type);
    if (!parts) return null;
    if (parts.order) return this.orders.get(event.orderNumber, options);
    if (parts.shipments) return collect(this.orders.shipments(event.orderNumber, {}, options));
    return collect(this.orders.items(event.orderNumber, {}, options));
  }
}

/** What clients made by `withOptions` share with the one they came from. */
interface Connection {
  mtls: MtlsConnection | undefined;
  wire: Wire;
  tokens: TokenSource | undefined;
  /** Traces and metrics; undefined with `telemetry: false`. */
  telemetry: TelemetrySlot | undefined;
}

/** What a client is made of; a client made by `withOptions` shares its parent's connection. */
interface ClientParts {
  options: ResolvedOptions;
  clock: Clock;
  log: ClientLog;
  connection: Connection;
}

/** Parts made by `withOptions` itself: the constructor takes no others from a caller. */
const derived = new WeakSet<ClientParts>();

/** How this client's requests leave: API, token and MCP alike. */
function createWire(options: ClientOptions, mtls: MtlsConnection | undefined): Wire {
  const custom = options.fetch;
  if (mtls) {
    // A custom fetch cannot carry the client certificate; dropping either silently would be worse.
    if (custom)
      throw new PartnerOrdersError("mtls and fetch cannot be combined: pass one of them.");
    return env("PARTNER_ORDERS_HTTP") === "fetch" ? fetchWire(mtls.fetch) : mtls.request;
  }
  // Looked up at call time, so request interceptors installed later (msw, nock) still apply.
  if (custom) return fetchWire((request) => custom(request));
  return nodeWire(env("PARTNER_ORDERS_HTTP") === "fetch");
}

/** The API base URL without its trailing slash, as every request's URL starts. */
function baseOf(options: ResolvedOptions): string {
  return options.baseUrl.href.replace(/\/$/, "");
}

function createTokenSource(
  options: ResolvedOptions,
  http: Http,
  clock: Clock,
  log: Log,
): TokenSource | undefined {
  if (options.mtls) return undefined;
  if (options.accessToken !== undefined) return new ProvidedTokenSource(options.accessToken);
  return new ClientCredentialsTokenSource(options, http, clock, log);
}
