// @ts-nocheck
import { createAdmin, type SandboxAdmin } from "./admin";
import { tokenEndpoint } from "./auth";
import { checkRegistration } from "./certificates";
import { type ClockMode, createSandboxClock, type SandboxClock } from "./clock";
import { type ActiveFault, FaultList, type FaultSpec } from "./faults";
import { createPipeline, type RequestLogEntry } from "./handler";
import { mcpRoute } from "./mcp";
import { createMswHandlers } from "./msw";
import { type RouteDefinition, RouteTable } from "./router";
import { accountRoutes } from "./routes/account";
import { orderRoutes } from "./routes/orders";
import { productRoutes } from "./routes/products";
import { submissionRoutes } from "./routes/submissions";
import { DEFAULT_CREDENTIALS, FIXTURES, OTHER_CREDENTIALS } from "./seed";
import { type Listener, type ListenOptions, listen } from "./server";
import { createState, newCounters, type SandboxCounters, type SandboxTimings } from "./state";
import {
  type WebhookBehaviour,
  type WebhookDelivery,
  WebhookHub,
  type WebhookRegistration,
  type WebhookRegistrationInput,
} from "./webhooks";

/** The base URL `sandbox.fetch` resolves relative paths against, and MSW handlers answer by default. */
export const SANDBOX_BASE_URL = "https://sandbox.partner-orders.test";

/** Options of {@link createSandbox}. Every one has a default; `createSandbox()` just works. */
export interface SandboxOptions {
  /** Seed of the generated data; the same seed always gives the same data. @default 1 */
  seed?: number;
  /**
   * `"manual"`: time moves only by `sandbox.clock.advance(ms)` or `sandbox.clock.runAll()`.
   * `"auto"`: time jumps to the next pending timer whenever everything waits on the clock. Give the
   * same clock to the client (`clock: sandbox.clock`) so its sleeps follow it. @default "real"
   */
  clock?: ClockMode;
  /** Start of a manual clock, epoch ms or a Date. @default now */
  startTime?: number | Date;
  /** Lifetime of access tokens, on the sandbox clock. @default 3600 */
  tokenTtlSeconds?: number;
  /**
   * How long POST /v1/orders waits for a terminal state, on the sandbox clock. The service waits up
   * to 20 s (API document, POST /v1/orders 3); set it low (or 0) to exercise polling. @default 20000
   */
  syncWaitMs?: number;
  /**
   * When a submission becomes `processing` and then terminal, after creation, on the sandbox clock.
   * Short enough for a demo, with the same states and headers as the service.
   * @default { processingAfterMs: 200, completeAfterMs: 1500 }
   */
  submissionTimings?: Partial<SandboxTimings>;
  /** Packages per shipments response before `packagesComplete` is false. @default 5000 */
  packagesPerResponse?: number;
  /** Duplicate and out-of-order deliveries, and the acknowledgement limit. */
  webhooks?: WebhookBehaviour;
  /**
   * The base URL `sandbox.fetch` resolves relative paths against, and MSW handlers answer on.
   * @default SANDBOX_BASE_URL
   */
  baseUrl?: string;
}

/** A client's credentials, ready to spread into `new PartnerOrders({ baseUrl, ...credentials })`. */
export interface SandboxCredentials {
  /** The OAuth client id. */
  clientId: string;
  /** The OAuth client secret (a fixed sandbox value). */
  clientSecret: string;
}

/**
 * One of msw's request handlers (an msw `HttpHandler`), to spread into `setupServer()` or
 * `server.use()`. Typed loosely on purpose: msw is an optional peer, and naming its class here
 * would make every partner who compiles against `partner-orders/testing` with
 * `skipLibCheck: false` install msw, even to use only `sandbox.fetch` or `sandbox.listen()`. msw's
 * handler classes have private members, so no shape of our own would be accepted by `server.use()`.
 */
// biome-ignore lint/suspicious/noExplicitAny: msw's own class cannot be named without msw installed (see above).
export type MswHandler = any;

/** A running sandbox, from {@link createSandbox}. */
export interface Sandbox {
  /** Where `sandbox.fetch` sends relative paths and MSW handlers listen by default. */
  readonly baseUrl: string;
  /** The default partner's client: orders:read and sites:read on sites 101, 102 and 103. */
  readonly credentials: SandboxCredentials;
  /** Another partner's client, granted only site 201: for "outside the grant" tests. */
  readonly otherCredentials: SandboxCredentials;
  /** Named seeded data worth testing against (sites, orders, products, variants). */
  readonly fixtures: typeof FIXTURES;
  /**
   * The sandbox's time; in `"manual"` mode, `clock.advance(ms)` and `clock.runAll()` move it. Also an
   * SDK `Clock`: a client given it sleeps on sandbox time, so `runAll()` finishes its waits too.
   */
  readonly clock: SandboxClock;
  /** Live counters; `resetCounters()` zeroes them. */
  readonly counters: SandboxCounters;
  /** Every request seen, oldest first (never an Authorization header or a token request body). */
  readonly requests: readonly RequestLogEntry[];
  /** Fault injection: answers or failures the real service can give, on demand. */
  readonly faults: {
    /** Shapes the next `times` (default 1) requests matching `method` and `path`. */
    inject(spec: FaultSpec): ActiveFault;
    /** Removes every fault not yet used up. */
    clear(): void;
    /** Faults still waiting for a matching request. */
    readonly pending: readonly ActiveFault[];
  };
  /** Webhook endpoints and the deliveries sent to them, signed as the service signs them. */
  readonly webhooks: {
    /** Registers an endpoint; events of the partner's granted sites are delivered to it from now on. */
    register(input: WebhookRegistrationInput): WebhookRegistration;
    /** Removes a registration; nothing more is delivered to it. */
    unregister(id: string): void;
    /** Sends the synthetic test event; returns its eventId (`test_...`). */
    sendTestEvent(options?: { registrationId?: string; type?: string }): string;
    /** Changes how deliveries are made (duplicates, order, timeout) from now on. */
    configure(behaviour: WebhookBehaviour): void;
    /** Resolves once every queued and in-flight delivery has finished. */
    settled(): Promise<void>;
    /** Every delivery attempt so far, oldest first. */
    readonly deliveries: readonly WebhookDelivery[];
  };
  /** Staff-side changes (status, shipping, cancellations, clients, grants). */
  readonly admin: SandboxAdmin;
  /** The service as a `fetch` function. A dropped connection rejects with a TypeError, as fetch does. */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /** MSW handlers for `baseUrl` (msw is an optional peer dependency, loaded on demand). */
  mswHandlers(baseUrl?: string): Promise<MswHandler[]>;
  /** A real HTTP server on loopback, or the mutual-TLS host with `tls`. */
  listen(options?: ListenOptions): Promise<Listener>;
  /**
   * Binds a client certificate (PEM, certificate only) to a partner by subject DN and serial number,
   * as staff registration does (API document, Mutual TLS). `certPem` is the client certificate,
   * optionally followed by its issuers in turn. Refused, as by staff: a private key, a chain longer
   * than 4 (the root counted even when not sent), a signature weaker than SHA-256, a key weaker than
   * RSA-2048 or other than ECDSA P-256/P-384, an expired certificate (on the sandbox clock).
   * @default partnerId the default partner
   */
  registerCertificate(input: { certPem: string; partnerId?: string }): Promise<{
    /** The certificate's subject distinguished name, as bound. */
    subject: string;
    /** The certificate's serial number, as bound. */
    serialNumber: string;
  }>;
  /** Adds or replaces a route, e.g. POST /v1/mcp. */
  route(definition: RouteDefinition): void;
  /** Zeroes every counter of `counters`. */
  resetCounters(): void;
  /** Closes every listener and stops every timer. */
  close(): Promise<void>;
}

/**
 * A stateful in-memory Partner Order Service following the API document, for tests and demos.
 *
 * Idempotency of POST /v1/orders (API document, POST /v1/orders 6): "the same body" is compared as
 * parsed JSON, so member order and whitespace do not matter, while every value does (line order, a
 * `null` where a member was absent, `2` against `"2"`). Resending the very same bytes, as the SDK
 * does, is the same body under any comparison.
 *
 * @example
 * const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
 * const { url, close } = await sandbox.listen();
 * const client = new PartnerOrders({ baseUrl: url, ...sandbox.credentials });
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const start = options.startTime instanceof Date ? options.startTime.getTime() : options.startTime;
  const clock = createSandboxClock(options.clock ?? "real", start);
  const state = createState(clock, options.seed ?? 1, {
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    syncWaitMs: options.syncWaitMs ?? 20_000,
    timings: { processingAfterMs: 200, completeAfterMs: 1500, ...options.submissionTimings },
    packagesPerResponse: options.packagesPerResponse ?? 5000,
  });
  const hub = new WebhookHub(state, FIXTURES.partnerId, options.webhooks);
  state.emit = (event) => hub.publish(event);

  const routes = new RouteTable();
  routes.add({
    method: "POST",
    path: "/oauth2/token",
    auth: "none",
    handle: tokenEndpoint,
  });
  for (const route of [...accountRoutes, ...orderRoutes, ...submissionRoutes, ...productRoutes])
    routes.add(route);
  // The MCP endpoint's place in the table; a later `sandbox.route()` replaces it.
  // POST /v1/mcp: the same operations over MCP; the SDK's server side loads on the first call.
  routes.add(mcpRoute());

  const faults = new FaultList();
  const log: RequestLogEntry[] = [];
  const pipeline = createPipeline(state, routes, faults, log);
  // Every listener goes through here, so `clock.runAll()` knows which requests are being handled.
  const handle: typeof pipeline.handle = (request, transport) =>
    clock.serve(pipeline.handle(request, transport));
  clock.holdWhile(() => hub.busy);
  const listeners = new Set<Listener>();
  const baseUrl = (options.baseUrl ?? SANDBOX_BASE_URL).replace(/\/+$/, "");

  return {
    baseUrl,
    credentials: { ...DEFAULT_CREDENTIALS },
    otherCredentials: { ...OTHER_CREDENTIALS },
    fixtures: FIXTURES,
    clock,
    counters: state.counters,
    requests: log,
    faults: {
      inject: (spec) => faults.inject(spec),
      clear: () => faults.clear(),
      get pending() {
        return faults.pending;
      },
    },
    webhooks: {
      register: (input) => hub.register(input),
      unregister: (id) => hub.unregister(id),
      sendTestEvent: (opts) => hub.sendTestEvent(opts),
      configure: (behaviour) => hub.configure(behaviour),
      settled: () => hub.settled(),
      deliveries: hub.deliveries,
    },
    admin: createAdmin(state),

    async fetch(input, init) {
      const request =
        typeof input === "string" && input.startsWith("/")
          ? new Request(`${baseUrl}${input}`, init)
          : new Request(input, init);
      const { signal } = request;
      signal.throwIfAborted();
      const result = await untilAborted(handle(request, { kind: "bearer" }), signal);
      if (result.drop) {
        throw new TypeError("fetch failed", {
          cause: new Error("connection dropped by the sandbox (injected fault)"),
        });
      }
      return result.response;
    },

    mswHandlers: (url = baseUrl) => createMswHandlers(handle, url),

    async listen(listenOptions) {
      const listener = await listen(handle, listenOptions);
      const tracked: Listener = {
        ...listener,
        close: async () => {
          listeners.delete(tracked);
          await listener.close();
        },
      };
      listeners.add(tracked);
      return tracked;
    },

    async registerCertificate({ certPem, partnerId = FIXTURES.partnerId }) {
      if (!state.partners.has(partnerId)) throw new Error(`No partner ${partnerId} in the sandbox`);
      const cert = await checkRegistration(certPem, clock.now());
      const binding = { partnerId, subject: cert.subject, serialNumber: cert.serialNumber };
      state.certificates.push(binding);
      return { subject: binding.subject, serialNumber: binding.serialNumber };
    },

    route: (definition) => routes.add(definition),

    resetCounters() {
      Object.assign(state.counters, newCounters());
    },

    async close() {
      await Promise.all([...listeners].map((l) => l.close()));
      hub.dispose();
      clock.dispose();
    },
  };
}

/** Rejects with the signal's reason when it aborts first, as `fetch` does. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
