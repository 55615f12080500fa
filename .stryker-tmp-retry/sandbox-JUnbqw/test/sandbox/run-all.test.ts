// @ts-nocheck
import { PartnerOrders } from "partner-orders";
import { createSandbox, type Sandbox, type SandboxOptions } from "partner-orders/testing";
import { afterEach, describe, expect, it } from "vitest";
import { validOrder } from "./helpers";

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

function sandboxAndClient(options: SandboxOptions = {}, baseUrl?: string) {
  const sandbox = createSandbox({ clock: "manual", ...options });
  open.push(sandbox);
  const client = (url = baseUrl) =>
    new PartnerOrders({
      ...sandbox.credentials,
      baseUrl: url ?? sandbox.baseUrl,
      ...(url ? {} : { fetch: sandbox.fetch }),
      clock: sandbox.clock,
    });
  return { sandbox, client };
}

describe("sandbox.clock.runAll()", () => {
  it("finishes submitOrderAndWait through its polls, on sandbox time only", async () => {
    const { sandbox, client } = sandboxAndClient({ syncWaitMs: 0 });
    const started = sandbox.clock.now();
    const seen: string[] = [];
    const waiting = client().submitOrderAndWait(validOrder(), {
      onPoll: (s) => seen.push(s.status),
    });
    const steps = await sandbox.clock.runAll();
    const submission = await waiting;
    expect(submission.status).toBe("completed");
    // queued at once, then polls every Retry-After (2 s) until the completion at 1.5 s is seen.
    expect(seen).toEqual(["queued", "completed"]);
    expect(sandbox.clock.now() - started).toBe(2000);
    expect(steps).toBeGreaterThanOrEqual(3);
    expect(sandbox.counters.requests["GET /v1/orders/submissions/{submissionId}"]).toBe(1);
  });

  it("moves the service's own wait of POST /v1/orders on, so the first answer is terminal", async () => {
    const { sandbox, client } = sandboxAndClient();
    const started = sandbox.clock.now();
    const waiting = client().submitOrderAndWait(validOrder());
    await sandbox.clock.runAll();
    expect((await waiting).status).toBe("completed");
    // The completion (1.5 s) answered the waiting POST; the 20 s ceiling was never reached.
    expect(sandbox.clock.now() - started).toBe(1500);
    expect(sandbox.counters.requests["GET /v1/orders/submissions/{submissionId}"]).toBeUndefined();
  });

  it("drives a retry's backoff on sandbox time", async () => {
    const { sandbox, client } = sandboxAndClient();
    sandbox.faults.inject({ method: "GET", path: "/v1/orders/{orderNumber}", status: 503 });
    const started = sandbox.clock.now();
    const reading = client().orders.get(sandbox.fixtures.orders.tracking);
    await sandbox.clock.runAll();
    expect((await reading).orderNumber).toBe(sandbox.fixtures.orders.tracking);
    expect(sandbox.counters.requests["GET /v1/orders/{orderNumber}"]).toBe(2);
    // Backoff from about one second, with jitter (API document, Errors: service_unavailable).
    expect(sandbox.clock.now() - started).toBeGreaterThanOrEqual(1000);
    expect(sandbox.clock.now() - started).toBeLessThanOrEqual(1250);
  });

  it("waits for answers still travelling over a real socket before moving time", async () => {
    const { sandbox, client } = sandboxAndClient({ syncWaitMs: 0 });
    const { url } = await sandbox.listen();
    const started = sandbox.clock.now();
    const waiting = client(url).submitOrderAndWait(validOrder());
    await sandbox.clock.runAll();
    expect((await waiting).status).toBe("completed");
    expect(sandbox.clock.now() - started).toBe(2000);
  });

  it("resolves at once with 0 steps when nothing is pending", async () => {
    const { sandbox } = sandboxAndClient();
    const before = sandbox.clock.now();
    expect(await sandbox.clock.runAll()).toBe(0);
    expect(sandbox.clock.now()).toBe(before);
  });

  it("gives up with a clear error past maxSteps when work keeps scheduling more", async () => {
    const { sandbox } = sandboxAndClient();
    const stop = new AbortController();
    const forever = (async () => {
      for (;;) await sandbox.clock.sleep(1000, stop.signal);
    })().catch(() => {});
    await expect(sandbox.clock.runAll({ maxSteps: 5 })).rejects.toThrow(
      /runAll\(\) stopped after 5 steps with 1 timer\(s\) still pending/,
    );
    stop.abort();
    await forever;
  });
});

describe('createSandbox({ clock: "auto" })', () => {
  it("lets a client on the sandbox clock finish a submission with no runAll and no real wait", async () => {
    const { sandbox, client } = sandboxAndClient({ clock: "auto", syncWaitMs: 0 });
    const started = sandbox.clock.now();
    const wall = performance.now();
    const submission = await client().submitOrderAndWait(validOrder());
    expect(submission.status).toBe("completed");
    expect(sandbox.clock.now() - started).toBe(2000);
    expect(performance.now() - wall).toBeLessThan(2000);
  });
});
