// @ts-nocheck
import {
  APIUserAbortError,
  BadRequestError,
  ConflictError,
  isProblem,
  type Submission,
  SubmissionTimeoutError,
} from "partner-orders";
import { FIXTURES } from "partner-orders/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type E2E, orderFor, rejection, startE2E } from "./support";

/**
 * Submitting end to end (API document, POST /v1/orders and "Submission status"): idempotency by
 * partnerOrderId, the 400/409 answers, `failed` returned not thrown, and the wait that polls as the
 * service's `Retry-After` says, with a deadline that can be resumed.
 *
 * The sandbox answers the POST at once (`syncWaitMs: 0`); a submission becomes `processing` 1 s and
 * `completed` 5 s after creation on the sandbox clock, which moves only when the client sleeps.
 */

let e2e: E2E;
beforeEach(async () => {
  e2e = await startE2E({
    syncWaitMs: 0,
    submissionTimings: { processingAfterMs: 1_000, completeAfterMs: 5_000 },
  });
});
afterEach(() => e2e.close());

describe("orders.submit", () => {
  it("201 then 200 for the same body: created true then false, one submission", async () => {
    const first = await e2e.client.orders.submit(orderFor("sub-1"));
    expect(first.created).toBe(true);
    expect(first.submission.status).toBe("queued");
    expect(first.retryAfterSeconds).toBe(2);
    expect(first.location).toBe(`/v1/orders/submissions/${first.submission.submissionId}`);

    const again = await e2e.client.orders.submit(orderFor("sub-1"));
    expect(again.created).toBe(false);
    expect(again.submission.submissionId).toBe(first.submission.submissionId);
    expect(e2e.sandbox.counters.submissionsCreated).toBe(1);
  });

  it("a different body under the same partnerOrderId is ConflictError partner_order_id_reused", async () => {
    await e2e.client.orders.submit(orderFor("sub-2"));
    const changed = orderFor("sub-2");
    changed.lines[0] = { ...(changed.lines[0] as (typeof changed.lines)[0]), quantity: 5 };
    const error = await rejection(e2e.client.orders.submit(changed));
    expect(error).toBeInstanceOf(ConflictError);
    expect(isProblem(error, "partner_order_id_reused")).toBe(true);
    // A 409 is final: sent once.
    expect(e2e.sandbox.counters.requests["POST /v1/orders"]).toBe(2);
  });

  it("a site without an ordering user is ConflictError ordering_not_provisioned", async () => {
    const request = orderFor("sub-3", FIXTURES.sites.notProvisioned, [
      { productId: FIXTURES.products.notProvisionedSite, partnerLineId: "l1", quantity: 1 },
    ]);
    const error = await rejection(e2e.client.orders.submit(request));
    expect(error).toBeInstanceOf(ConflictError);
    expect(isProblem(error, "ordering_not_provisioned")).toBe(true);
    expect(e2e.sandbox.counters.submissionsCreated).toBe(0);
  });

  it("a siteId outside the grant is BadRequestError invalid_site_id", async () => {
    const error = await rejection(
      e2e.client.orders.submit(orderFor("sub-4", FIXTURES.sites.otherPartner)),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(isProblem(error, "invalid_site_id")).toBe(true);
  });
});

describe("submitOrderAndWait", () => {
  it("a product not in the catalog ends `failed` with errors, returned not thrown", async () => {
    const request = orderFor("wait-failed", FIXTURES.sites.main, [
      { productId: FIXTURES.products.unlisted, variantId: 1501, partnerLineId: "pen", quantity: 1 },
    ]);
    const result = await e2e.client.submitOrderAndWait(request);
    expect(result.status).toBe("failed");
    expect(result.order).toBeUndefined();
    expect(result.errors).toEqual([
      expect.objectContaining({
        code: "order_rejected",
        partnerLineId: "pen",
        field: "lines[0].productId",
      }),
    ]);
  });

  it("polls to completed, sleeping what Retry-After says, onPoll seeing every state", async () => {
    const seen: string[] = [];
    const result = await e2e.client.submitOrderAndWait(orderFor("wait-1"), {
      onPoll: (s) => seen.push(s.status),
    });
    expect(result.status).toBe("completed");
    expect(result.order?.orderNumber).toEqual(expect.any(Number));
    expect(seen).toEqual(["queued", "processing", "processing", "completed"]);
    expect(e2e.clock.sleeps).toEqual([2_000, 2_000, 2_000]);
    expect(e2e.sandbox.counters.requests["POST /v1/orders"]).toBe(1);
    expect(e2e.sandbox.counters.requests["GET /v1/orders/submissions/{submissionId}"]).toBe(3);
    // The completed order is readable.
    const order = await e2e.client.orders.get(result.order?.orderNumber as number);
    expect(order.siteId).toBe(FIXTURES.sites.main);
  });

  it("a deadline shorter than the completion throws SubmissionTimeoutError; wait() resumes it", async () => {
    const error = await rejection(
      e2e.client.submitOrderAndWait(orderFor("wait-2"), { timeoutMs: 3_000 }),
    );
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    const timeout = error as SubmissionTimeoutError<Submission>;
    expect(timeout.submissionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(timeout.submission?.status).toBe("processing");
    // No sleep past the deadline was started.
    expect(e2e.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3_000);

    // A later process resumes with the id alone.
    const resumed = await e2e.newClient().submissions.wait(timeout.submissionId);
    expect(resumed.status).toBe("completed");
    expect(resumed.submissionId).toBe(timeout.submissionId);
    expect(e2e.sandbox.counters.submissionsCreated).toBe(1);
  });

  it("an AbortSignal stops the wait with APIUserAbortError", async () => {
    const controller = new AbortController();
    const error = await rejection(
      e2e.client.submitOrderAndWait(orderFor("wait-3"), {
        signal: controller.signal,
        onPoll: (s) => {
          if (s.status === "processing") controller.abort();
        },
      }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    // The submission itself goes on; it can be waited for later.
    const [latest] = (await e2e.client.submissions.list()).data;
    expect(latest?.status).toBe("processing");
  });

  it("an AbortSignal already aborted sends nothing", async () => {
    const error = await rejection(
      e2e.client.submitOrderAndWait(orderFor("wait-4"), { signal: AbortSignal.abort() }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(e2e.sandbox.counters.requests["POST /v1/orders"]).toBeUndefined();
  });
});

describe("more waits", () => {
  it("a POST that keeps failing past the deadline ends in SubmissionTimeoutError, nothing created", async () => {
    e2e.sandbox.faults.inject({ method: "POST", path: "/v1/orders", status: 503, times: 5 });
    const error = await rejection(
      e2e.client.submitOrderAndWait(orderFor("wait-5"), { timeoutMs: 1_500 }),
    );
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect((error as SubmissionTimeoutError).submission).toBeUndefined();
    expect(e2e.sandbox.counters.submissionsCreated).toBe(0);
    // No sleep passed the deadline.
    expect(e2e.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1_500);
  });

  it("a 429 on the POST is waited out and the submission completes once", async () => {
    e2e.sandbox.faults.inject({ method: "POST", path: "/v1/orders", status: 429, retryAfter: 4 });
    const result = await e2e.client.submitOrderAndWait(orderFor("wait-6"));
    expect(result.status).toBe("completed");
    expect(e2e.clock.sleeps[0]).toBeGreaterThanOrEqual(4_000);
    expect(e2e.sandbox.counters.submissionsCreated).toBe(1);
  });

  it("two concurrent waits for the same partnerOrderId share one submission", async () => {
    const [a, b] = await Promise.all([
      e2e.client.submitOrderAndWait(orderFor("wait-7")),
      e2e.newClient().submitOrderAndWait(orderFor("wait-7")),
    ]);
    expect(a.status).toBe("completed");
    expect(b.submissionId).toBe(a.submissionId);
    expect(b.order?.orderNumber).toBe(a.order?.orderNumber);
    expect(e2e.sandbox.counters.ordersCreated).toBe(1);
  });

  it("wait() on a failed submission returns it; on an unknown id throws submission_not_found", async () => {
    const failed = await e2e.client.orders.submit(
      orderFor("wait-8", FIXTURES.sites.main, [
        { productId: FIXTURES.products.podWithMinimum, partnerLineId: "few", quantity: 1 },
      ]),
    );
    const result = await e2e.client.submissions.wait(failed.submission.submissionId);
    expect(result.status).toBe("failed");
    expect(result.errors?.[0]).toMatchObject({ code: "order_rejected", partnerLineId: "few" });
    const error = await rejection(
      e2e.client.submissions.wait("3f2b8c1e-6d4a-4b5e-9f1a-2c3d4e5f6a7b"),
    );
    expect(isProblem(error, "submission_not_found")).toBe(true);
  });
});

describe("a POST answered terminal at once", () => {
  it("returns without polling when the service's synchronous wait saw it complete", async () => {
    const quick = await startE2E({
      clock: "real",
      syncWaitMs: 2_000,
      submissionTimings: { processingAfterMs: 5, completeAfterMs: 20 },
    });
    try {
      const seen: string[] = [];
      const result = await quick.client.submitOrderAndWait(orderFor("sync-1"), {
        onPoll: (s) => seen.push(s.status),
      });
      expect(result.status).toBe("completed");
      expect(seen).toEqual(["completed"]);
      expect(quick.clock.sleeps).toEqual([]);
      expect(quick.sandbox.counters.requests["GET /v1/orders/submissions/{submissionId}"]).toBe(
        undefined,
      );
    } finally {
      await quick.close();
    }
  });
});
