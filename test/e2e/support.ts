import { type ClientOptions, type OrderRequest, PartnerOrders } from "partner-orders";
import {
  createSandbox,
  type Listener,
  type Sandbox,
  type SandboxOptions,
} from "partner-orders/testing";
import { FakeClock } from "../support/fake-clock";

/**
 * The client's time in end-to-end tests: its own `now`/`monotonic`, and a `sleep` that returns at
 * once after moving both its own time and the sandbox clock forward by the same amount. Backoff,
 * `Retry-After` waits and submission polls are then instant and deterministic, while the sandbox
 * sees exactly the time the client slept (submissions progress, tokens age). Attempts are timed by
 * the host's timers: the server's slowness here is real time.
 *
 * `sandbox.clock.advance(ms)` alone moves only the server's time: a token can expire on the
 * service while the client still believes it fresh.
 */
export function linkedClock(sandbox: Sandbox): FakeClock {
  return new FakeClock({
    start: sandbox.clock.now(),
    monotonic: 1_000_000,
    follower: sandbox.clock,
    hostTimers: true,
  });
}

export interface E2E {
  sandbox: Sandbox;
  listener: Listener;
  /** `http://127.0.0.1:<port>` */
  url: string;
  clock: FakeClock;
  client: PartnerOrders;
  /** Another client on the same sandbox and clock, with `options` overriding the defaults. */
  newClient(options?: ClientOptions): PartnerOrders;
  /** A raw GET over the same real HTTP, with a token of its own: the bytes the SDK was sent. */
  raw(path: string): Promise<{ status: number; text: string; json: unknown }>;
  close(): Promise<void>;
}

/** A manual-clock sandbox on a real loopback port, and a client on it with a {@link linkedClock}. */
export async function startE2E(options: SandboxOptions = {}): Promise<E2E> {
  const sandbox = createSandbox({ clock: "manual", ...options });
  const listener = await sandbox.listen();
  const { url } = listener;
  const clock = linkedClock(sandbox);
  const newClient = (overrides: ClientOptions = {}) =>
    new PartnerOrders({ baseUrl: url, ...sandbox.credentials, clock, ...overrides });
  let token: string | undefined;
  const raw = async (path: string) => {
    token ??= await mintToken(url, sandbox);
    const response = await fetch(`${url}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await response.text();
    return { status: response.status, text, json: text ? (JSON.parse(text) as unknown) : null };
  };
  return {
    sandbox,
    listener,
    url,
    clock,
    client: newClient(),
    newClient,
    raw,
    close: async () => {
      await listener.close();
      await sandbox.close();
    },
  };
}

async function mintToken(url: string, sandbox: Sandbox): Promise<string> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: sandbox.credentials.clientId,
      client_secret: sandbox.credentials.clientSecret,
    }),
  });
  if (!response.ok) throw new Error(`the sandbox refused a token (${response.status})`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Every page of a raw list endpoint, followed by `nextCursor` until it is null. */
export async function rawWalk<T>(e2e: E2E, path: string, key: string): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const suffix: string = cursor === null ? "" : `${sep}cursor=${encodeURIComponent(cursor)}`;
    const { status, json } = await e2e.raw(`${path}${suffix}`);
    if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
    const body = json as Record<string, unknown>;
    all.push(...(body[key] as T[]));
    cursor = (body.nextCursor as string | null) ?? null;
  } while (cursor !== null);
  return all;
}

/** What `call` rejected with; fails the test when it resolves. */
export async function rejection(call: PromiseLike<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof call === "function" ? call() : call);
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, and it succeeded");
}

export const shipTo = {
  name: "Ada Lovelace",
  address1: "1 Analytical Way",
  city: "London",
  state: "LDN",
  postalCode: "N1 9GU",
  country: "GB",
};

type OrderLine = { productId: string; partnerLineId: string; quantity: number; variantId?: number };

/** A valid order for site 101 (one STOCK line, one POD line) under `partnerOrderId`. */
export function orderFor(
  partnerOrderId: string,
  siteId = 101,
  lines: OrderLine[] = [
    { productId: "SLO_1001", variantId: 11, partnerLineId: "line-1", quantity: 2 },
    { productId: "SLS_2001", partnerLineId: "line-2", quantity: 3 },
  ],
): OrderRequest {
  return { siteId, partnerOrderId, shipTo: { ...shipTo, email: "ada@example.com" }, lines };
}
