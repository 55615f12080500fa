import { PartnerOrders } from "partner-orders";
import { MirrorError, OrderMirror, sqliteStore } from "partner-orders/sync";
import { createSandbox, FIXTURES, type Sandbox } from "partner-orders/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { recorder } from "../support/logger.js";
import { settle } from "./support.js";

/**
 * What run() does on each kind of failure: an error no retry can fix ends it at once with the
 * problem's code and a hint; a transient one is logged with what happens next, and the loop goes on.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  vi.restoreAllMocks();
});

function mirrorOn(
  sandbox: Sandbox,
  client: Partial<ConstructorParameters<typeof PartnerOrders>[0]> = {},
  options: Partial<ConstructorParameters<typeof OrderMirror>[0]> = {},
) {
  const mirror = new OrderMirror({
    client: new PartnerOrders({
      baseUrl: sandbox.baseUrl,
      ...sandbox.credentials,
      fetch: sandbox.fetch,
      clock: sandbox.clock,
      ...client,
    }),
    store: sqliteStore(":memory:"),
    clock: sandbox.clock,
    ...options,
  });
  cleanups.push(() => mirror.close());
  return mirror;
}

function sandboxed() {
  const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
  cleanups.push(() => sandbox.close());
  return sandbox;
}

/** run() must end by itself: the clock never moves here, so a retry with backoff would hang. */
async function stops(mirror: OrderMirror): Promise<MirrorError> {
  const abort = new AbortController();
  const ended = mirror.run({ signal: abort.signal }).then(
    () => undefined,
    (e: unknown) => e,
  );
  let result: unknown = "still running";
  void ended.then((r) => {
    result = r;
  });
  await settle(200);
  abort.abort();
  await ended;
  expect(result).toBeInstanceOf(MirrorError);
  return result as MirrorError;
}

describe("run() and an error no retry can fix", () => {
  it("a wrong client secret ends it at once: invalid_client, with a hint", async () => {
    const sandbox = sandboxed();
    const error = await stops(
      mirrorOn(sandbox, { clientSecret: "not-the-secret" }, { logger: recorder() }),
    );
    expect(error.code).toBe("invalid_client");
    expect(error.hint).toContain("client id and secret");
    expect(error.message).not.toContain("not-the-secret");
  });

  it("a base URL with a wrong path ends it as such, not as a token problem", async () => {
    const sandbox = sandboxed();
    const error = await stops(
      mirrorOn(sandbox, { baseUrl: `${sandbox.baseUrl}/api/v2` }, { logger: recorder() }),
    );
    expect(error.code).toBe("token_endpoint_not_found");
    expect(error.hint).toContain("base URL answers no token endpoint");
  });

  it("a base URL of another host ends it: it answers no token endpoint", async () => {
    const sandbox = sandboxed();
    const elsewhere = sandboxed();
    // A server that is there but answers 404 to everything it does not know.
    const error = await stops(
      mirrorOn(
        sandbox,
        {
          fetch: (input, init) => {
            const request = new Request(input, init);
            return new URL(request.url).pathname === "/oauth2/token"
              ? Promise.resolve(new Response("<html>not found</html>", { status: 404 }))
              : elsewhere.fetch(request);
          },
        },
        { logger: recorder() },
      ),
    );
    expect(error.code).toBe("token_endpoint_not_found");
    expect(error.hint).toContain("base URL answers no token endpoint");
  });

  it("a site that is not granted ends it: invalid_site_id", async () => {
    const sandbox = sandboxed();
    const error = await stops(mirrorOn(sandbox, {}, { siteIds: [999_999], logger: recorder() }));
    expect(error.code).toBe("invalid_site_id");
    expect(error.hint).toContain("not granted");
  });

  it("a credential without orders:read ends it: insufficient_scope", async () => {
    const sandbox = sandboxed();
    sandbox.admin.setCapabilities(FIXTURES.partnerId, ["sites:read"]);
    const error = await stops(mirrorOn(sandbox, {}, { logger: recorder() }));
    expect(error.code).toBe("insufficient_scope");
    expect(error.hint).toContain("orders:read");
  });

  it("the error is what status() shows as the last error", async () => {
    const sandbox = sandboxed();
    const mirror = mirrorOn(sandbox, {}, { siteIds: [999_999], logger: recorder() });
    await stops(mirror);
    await settle();
    expect((await mirror.status()).lastError).toMatchObject({ code: "invalid_site_id" });
  });
});

describe("run() and a transient failure", () => {
  it("logs a 503 sweep with its code and when it tries again, and goes on to sweep", async () => {
    const sandbox = sandboxed();
    const log = recorder();
    const mirror = mirrorOn(sandbox, { maxRetries: 0 }, { logger: log });
    sandbox.faults.inject({ path: "/v1/orders", status: 503, times: 1 });
    const abort = new AbortController();
    const running = mirror.run({ signal: abort.signal });
    await settle(200);
    const warned = log.calls.find(
      (c) => c[0] === "warn" && String(c[1]).startsWith("[partner-orders] sweep failed"),
    );
    expect(String(warned?.[1])).toContain("(service_unavailable); the next try is in 60 s");
    sandbox.clock.advance(60_000);
    for (let i = 0; i < 100 && (await mirror.status()).lastSweep?.ok !== true; i++)
      await settle(20);
    expect((await mirror.status()).lastSweep).toMatchObject({ ok: true });
    abort.abort();
    await running;
  });

  it("warns on stderr when no logger is given", async () => {
    const sandbox = sandboxed();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const mirror = mirrorOn(sandbox, { maxRetries: 0 });
    sandbox.faults.inject({ path: "/v1/orders", status: 503, times: 1 });
    const abort = new AbortController();
    const running = mirror.run({ signal: abort.signal });
    await settle(200);
    abort.abort();
    await running;
    expect(
      warn.mock.calls.some((c) => String(c[0]).includes("sweep failed (service_unavailable)")),
    ).toBe(true);
  });
});
