import { PartnerOrders } from "partner-orders";
import { describe, expect, it } from "vitest";
import type { Operation } from "../../../src/core/http/operation";
import { attachHttp } from "../../../src/internal/http-access";
import { PartnerIds, partnerOrderIdOf } from "../../../src/sync/partner-ids";
import { memoryStore } from "./reader-support";
import { stored } from "./support";

type Observer = (operation: Operation, data: unknown) => void;

/** A client whose HTTP layer hands its observer to the test, to play calls through. */
function watched() {
  const observers = new Set<Observer>();
  const client = {};
  attachHttp(client, {
    observe(observer: Observer) {
      observers.add(observer);
      return () => observers.delete(observer);
    },
  } as never);
  const learnt: [number, string][] = [];
  const ids = new PartnerIds();
  const stop = ids.watch(client as PartnerOrders, (n, id) => learnt.push([n, id]));
  const call = (operationId: string, data: unknown, body?: unknown) => {
    for (const observer of observers) observer({ operationId, params: {}, body } as never, data);
  };
  return { ids, learnt, stop, call, observers };
}

const submitted = (partnerOrderId: unknown) => ({ partnerOrderId, siteId: 101, lines: [] });

describe("PartnerIds", () => {
  it("remembers an id until a read writes it, the newest 10,000 at most", () => {
    const ids = new PartnerIds();
    expect(ids.get(1)).toBeUndefined();
    ids.learn(1, "a");
    ids.learn(1, "b");
    expect(ids.get(1)).toBe("b");
    ids.written(1, "a"); // an older id written: the newer one is still to write
    expect(ids.get(1)).toBe("b");
    ids.written(1, "b");
    expect(ids.get(1)).toBeUndefined();
    for (let n = 1; n <= 10_001; n++) ids.learn(n, `po-${n}`);
    expect(ids.get(1)).toBeUndefined();
    expect(ids.get(2)).toBe("po-2");
    expect(ids.get(10_001)).toBe("po-10001");
    ids.learn(2, "again"); // learnt again: the newest, kept longest
    ids.learn(10_002, "x");
    expect(ids.get(2)).toBe("again");
    expect(ids.get(3)).toBeUndefined();
  });

  it("learns from a submission completed at once, and from the wait that sees it complete", () => {
    const t = watched();
    t.call(
      "submitOrder",
      { submissionId: "s1", status: "completed", order: { orderNumber: 7 } },
      submitted("po-7"),
    );
    expect(t.learnt).toEqual([[7, "po-7"]]);
    expect(t.ids.get(7)).toBe("po-7");
    t.call("submitOrder", { submissionId: "s2", status: "queued" }, submitted("po-8"));
    t.call("getSubmission", { submissionId: "s2", status: "processing" });
    expect(t.learnt).toHaveLength(1);
    t.call("getSubmission", { submissionId: "s2", status: "completed", order: { orderNumber: 8 } });
    expect(t.learnt).toEqual([
      [7, "po-7"],
      [8, "po-8"],
    ]);
    // Completed once: the submission is forgotten.
    t.call("getSubmission", { submissionId: "s2", status: "completed", order: { orderNumber: 8 } });
    expect(t.learnt).toHaveLength(2);
  });

  it("learns nothing from other calls, failed submissions, or ids and numbers out of shape", () => {
    const t = watched();
    t.call(
      "getOrder",
      { submissionId: "s", status: "completed", order: { orderNumber: 1 } },
      submitted("x"),
    );
    t.call("getSubmission", {
      submissionId: "unknown",
      status: "completed",
      order: { orderNumber: 2 },
    });
    t.call("submitOrder", { submissionId: "s3", status: "failed" }, submitted("po-3"));
    t.call("getSubmission", { submissionId: "s3", status: "completed", order: { orderNumber: 3 } });
    expect(t.learnt).toEqual([[3, "po-3"]]); // a wait that outlived a failed state: as the service says
    for (const id of ["", "x".repeat(101), 42, undefined])
      t.call(
        "submitOrder",
        { submissionId: "s4", status: "completed", order: { orderNumber: 4 } },
        submitted(id),
      );
    t.call(
      "submitOrder",
      { submissionId: "s5", status: "completed", order: { orderNumber: 4 } },
      null,
    );
    for (const orderNumber of [0, -1, 1.5, "5", undefined])
      t.call(
        "submitOrder",
        { submissionId: "s6", status: "completed", order: { orderNumber } },
        submitted("po-6"),
      );
    t.call("submitOrder", { status: "completed", order: { orderNumber: 9 } }, submitted("po-9"));
    t.call("submitOrder", null, submitted("po-10"));
    t.call("submitOrder", "text", submitted("po-11"));
    expect(t.learnt).toEqual([
      [3, "po-3"],
      [9, "po-9"],
    ]);
    expect(t.ids.get(4)).toBeUndefined();
    t.stop();
    t.call(
      "submitOrder",
      { submissionId: "s7", status: "completed", order: { orderNumber: 12 } },
      submitted("po-12"),
    );
    expect(t.learnt).toHaveLength(2);
    expect(t.observers.size).toBe(0);
  });

  it("learns only from a submission's own calls, by a submission id that is text", () => {
    const t = watched();
    t.call("submitOrder", { submissionId: "s1", status: "queued" }, submitted("po-1"));
    // Another call that happens to carry the id (an order, a list) is no submission's end.
    t.call("getOrder", { submissionId: "s1", status: "completed", order: { orderNumber: 1 } });
    expect(t.learnt).toEqual([]);
    // The same submission answered again (an idempotent replay) without an id keeps the first.
    t.call("submitOrder", { submissionId: "s1", status: "queued" }, submitted(undefined));
    t.call("getSubmission", { submissionId: "s1", status: "completed", order: { orderNumber: 1 } });
    expect(t.learnt).toEqual([[1, "po-1"]]);
    // A submission id that is not text is no id.
    t.call("submitOrder", { submissionId: 42, status: "queued" }, submitted("po-42"));
    t.call("getSubmission", { submissionId: 42, status: "completed", order: { orderNumber: 42 } });
    // Completed without an order: nothing to learn, and no throw.
    t.call("submitOrder", { submissionId: "s2", status: "completed" }, submitted("po-2"));
    expect(t.learnt).toEqual([[1, "po-1"]]);
  });

  it("remembers the newest 10,000 submissions not yet completed", () => {
    const t = watched();
    for (let i = 0; i < 10_000; i++) {
      t.call("submitOrder", { submissionId: `s${i}`, status: "queued" }, submitted(`po-${i}`));
    }
    // Completed at once and without a submission id: nothing to remember, nothing pushed out.
    t.call("submitOrder", { status: "completed", order: { orderNumber: 7 } }, submitted("po-x"));
    t.call("getSubmission", { submissionId: "s0", status: "completed", order: { orderNumber: 1 } });
    expect(t.learnt).toEqual([
      [7, "po-x"],
      [1, "po-0"],
    ]);
    t.call("submitOrder", { submissionId: "s10000", status: "queued" }, submitted("po-10000"));
    t.call("submitOrder", { submissionId: "s10001", status: "queued" }, submitted("po-10001"));
    // s0 completed and s10000 took its place; s10001 pushed out the oldest, s1.
    t.call("getSubmission", { submissionId: "s1", status: "completed", order: { orderNumber: 2 } });
    t.call("getSubmission", { submissionId: "s2", status: "completed", order: { orderNumber: 3 } });
    expect(t.learnt.slice(2)).toEqual([[3, "po-2"]]);
  });

  it("watches nothing on an object that is no client", () => {
    const stop = new PartnerIds().watch({} as PartnerOrders, () => {
      throw new Error("never");
    });
    expect(stop()).toBeUndefined();
  });

  it("hears a real client's submissions; an observer that throws does not fail the call", async () => {
    const client = new PartnerOrders({
      baseUrl: "https://api.example.com",
      accessToken: "t",
      maxRetries: 0,
      fetch: async () =>
        new Response(
          JSON.stringify({
            submissionId: "3f1c1f5e-6a9b-4d4e-8f0a-2b3c4d5e6f70",
            status: "completed",
            order: {
              orderNumber: 100321,
              status: "Submitted",
              totalPrice: 1,
              projectId: 1,
              lines: [],
            },
          }),
          { status: 201, headers: { "content-type": "application/json" } },
        ),
    });
    const ids = new PartnerIds();
    const learnt: number[] = [];
    ids.watch(client, (n) => {
      learnt.push(n);
      throw new Error("the mirror's own trouble");
    });
    const result = await client.orders.submit({
      siteId: 101,
      partnerOrderId: "po-real",
      shipTo: {
        name: "Ada",
        address1: "1 Main St",
        city: "Springfield",
        state: "IL",
        postalCode: "62701",
        country: "US",
        email: "ada@example.com",
      },
      lines: [{ productId: "SLO_1001", variantId: 11, partnerLineId: "l1", quantity: 1 }],
    } as never);
    expect(result.created).toBe(true);
    expect(learnt).toEqual([100321]);
    expect(ids.get(100321)).toBe("po-real");
  });

  it("writes a learnt id to a stored order without a change, and leaves an unknown order to its read", async () => {
    const store = await memoryStore();
    await store.commit(100001, () => ({ next: stored(), changes: [] }));
    const ids = new PartnerIds();
    ids.learn(100001, "po-1");
    ids.learn(5, "po-5");
    await ids.write(store, 100001, "po-1");
    await ids.write(store, 5, "po-5");
    expect((await store.get(100001))?.partnerOrderId).toBe("po-1");
    expect(await store.get(5)).toBeUndefined();
    expect(ids.get(100001)).toBeUndefined();
    expect(ids.get(5)).toBe("po-5");
    expect(await store.lastChangeId()).toBe(0);
    // Written again with the same id: nothing to write.
    await ids.write(store, 100001, "po-1");
    expect((await store.get(100001))?.order).toEqual(stored().order);
  });

  it("partnerOrderIdOf takes 1 to 100 characters of text", () => {
    expect(partnerOrderIdOf("a")).toBe("a");
    expect(partnerOrderIdOf("x".repeat(100))).toBe("x".repeat(100));
    expect(partnerOrderIdOf("x".repeat(101))).toBeUndefined();
    expect(partnerOrderIdOf("")).toBeUndefined();
    expect(partnerOrderIdOf(7)).toBeUndefined();
  });
});
