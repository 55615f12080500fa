// @ts-nocheck
import type { Order, PartnerOrders, Submission } from "partner-orders";
import type { FaultSpec } from "partner-orders/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type E2E, orderFor, startE2E } from "./support";

/**
 * One call of `submitOrderAndWait` never creates two orders (API.md "Waiting for a submission"): a
 * POST whose answer is lost is sent again with identical bytes, and the service answers the resend
 * with the original submission (API document, POST /v1/orders Behaviour 6). Each failure is tried
 * many times over real HTTP, with a fresh partnerOrderId per trial.
 */

/** Trials for the failures after commit, the ones that could duplicate; fewer for the others. */
const TRIALS = 30;
const FEWER = 15;

let e2e: E2E;
beforeEach(async () => {
  e2e = await startE2E({
    syncWaitMs: 0,
    submissionTimings: { processingAfterMs: 100, completeAfterMs: 300 },
  });
});
afterEach(() => e2e.close());

/** Runs `count` submissions, each behind `before(i)`, and checks one order per partnerOrderId. */
async function trials(
  prefix: string,
  before: (i: number) => void,
  minPostsEach: number,
  { client = e2e.client, count = TRIALS }: { client?: PartnerOrders; count?: number } = {},
) {
  const results: Submission[] = [];
  for (let i = 0; i < count; i++) {
    before(i);
    results.push(await client.submitOrderAndWait(orderFor(`${prefix}-${i}`)));
  }
  expect(results.map((r) => r.status)).toEqual(Array(count).fill("completed"));
  expect(new Set(results.map((r) => r.submissionId)).size).toBe(count);
  expect(new Set(results.map((r) => r.order?.orderNumber)).size).toBe(count);

  // The service holds exactly one submission and one order per partnerOrderId.
  expect(e2e.sandbox.counters.submissionsCreated).toBe(count);
  expect(e2e.sandbox.counters.ordersCreated).toBe(count);
  const listed: Submission[] = [];
  for await (const s of e2e.client.submissions.list({ limit: 100 })) listed.push(s);
  expect(listed.map((s) => s.submissionId).sort()).toEqual(
    results.map((r) => r.submissionId).sort(),
  );
  const orders: Order[] = [];
  for await (const o of e2e.client.orders.list({ limit: 200 })) orders.push(o);
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${i}`;
    // The sandbox files the partnerOrderId as the order's purchaseOrder.
    expect(
      orders.filter((o) => o.purchaseOrder === id),
      id,
    ).toHaveLength(1);
    // And the failure really happened: the POST was sent more than once, byte for byte.
    const posts = e2e.sandbox.requests.filter(
      (r) => r.method === "POST" && r.template === "/v1/orders" && r.body?.includes(`"${id}"`),
    );
    expect(posts.length, id).toBeGreaterThanOrEqual(minPostsEach);
    expect(new Set(posts.map((p) => p.body)).size, id).toBe(1);
  }
}

const post = (spec: Omit<FaultSpec, "method" | "path">): FaultSpec => ({
  method: "POST",
  path: "/v1/orders",
  ...spec,
});

describe("a lost answer to POST /v1/orders never makes a second order", () => {
  it("connection dropped after the service committed the POST", async () => {
    await trials("drop-after", () => e2e.sandbox.faults.inject(post({ drop: "after" })), 2);
  });

  it("connection dropped after commit, twice in a row", async () => {
    await trials(
      "drop-after-twice",
      () => e2e.sandbox.faults.inject(post({ drop: "after", times: 2 })),
      3,
      { count: FEWER },
    );
  });

  it("connection dropped before the service saw the POST", async () => {
    await trials("drop-before", () => e2e.sandbox.faults.inject(post({ drop: "before" })), 2, {
      count: FEWER,
    });
  });

  it("503 before commit", async () => {
    await trials("503-before", () => e2e.sandbox.faults.inject(post({ status: 503 })), 2, {
      count: FEWER,
    });
  });

  it("503 after commit (the work done, the answer replaced on the way back)", async () => {
    // The sandbox's status faults answer instead of handling (before commit); a 503 written after
    // the work is committed is made here, on the way back, over the same real HTTP.
    let failNext = false;
    const client = e2e.newClient({
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const response = await fetch(request);
        const isPost = request.method === "POST" && new URL(request.url).pathname === "/v1/orders";
        if (!isPost || !failNext) return response;
        failNext = false;
        await response.body?.cancel();
        return new Response(
          JSON.stringify({
            type: "about:blank",
            title: "Service Unavailable",
            status: 503,
            code: "service_unavailable",
            detail: "Transient failure.",
            requestId: "after-commit",
          }),
          { status: 503, headers: { "content-type": "application/problem+json" } },
        );
      },
    });
    await trials(
      "503-after",
      () => {
        failNext = true;
      },
      2,
      { client },
    );
  });
});
