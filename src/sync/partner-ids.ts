import type { PartnerOrders } from "../client";
import { httpOf } from "../internal/http-access";
import type { MirrorStore } from "./types";

/** Ids remembered at most (learnt and not yet written; submissions not yet completed). */
const REMEMBERED = 10_000;

/**
 * The partnerOrderIds the mirror learns (the service's Order has no such field): from webhook
 * events, which carry it for orders submitted through the API, and from submissions made through
 * the mirror's own client. Each is written with the order's next read (a read that stores the row
 * stores it too); until then it is kept here, in this process only.
 */
export class PartnerIds {
  readonly #pending = new Map<number, string>();
  /** Submissions not yet completed, by id: their partnerOrderId, for when they complete. */
  readonly #submissions = new Map<string, string>();

  /** The id learnt for `orderNumber` and not yet written, if any. */
  get(orderNumber: number): string | undefined {
    return this.#pending.get(orderNumber);
  }

  /** Remembers an id until the order's next read writes it. */
  learn(orderNumber: number, partnerOrderId: string): void {
    this.#pending.delete(orderNumber);
    this.#pending.set(orderNumber, partnerOrderId);
    trim(this.#pending);
  }

  /** The read of `orderNumber` wrote `partnerOrderId`: nothing more to remember. */
  written(orderNumber: number, partnerOrderId: string): void {
    if (this.#pending.get(orderNumber) === partnerOrderId) this.#pending.delete(orderNumber);
  }

  /**
   * Writes a learnt id to the order's stored row, without a read and without a change (the service
   * said nothing new); nothing when the order is not stored yet, its next read writes it then.
   */
  async write(store: MirrorStore, orderNumber: number, id: string): Promise<void> {
    await store.commit(orderNumber, (current) =>
      current && current.partnerOrderId !== id
        ? { next: { ...current, partnerOrderId: id }, changes: [] }
        : undefined,
    );
    if ((await store.get(orderNumber))?.partnerOrderId === id) this.written(orderNumber, id);
  }

  /**
   * Learns from the submissions `client` makes (`orders.submit`, `submitOrderAndWait`,
   * `submissions.wait`): a completed one names its order; calls `onLearnt` with it. Returns the
   * function that stops listening; nothing for an object that is no `PartnerOrders` of this package.
   */
  watch(client: PartnerOrders, onLearnt: (orderNumber: number, id: string) => void): () => void {
    const http = httpOf(client);
    if (!http) return () => undefined;
    return http.observe((operation, data) => {
      const submission = data as {
        submissionId?: unknown;
        status?: unknown;
        order?: { orderNumber?: unknown };
      } | null;
      if (typeof submission !== "object" || submission === null) return;
      const submissionId =
        typeof submission.submissionId === "string" ? submission.submissionId : undefined;
      let id: string | undefined;
      if (operation.operationId === "submitOrder") {
        id = partnerOrderIdOf((operation.body as { partnerOrderId?: unknown })?.partnerOrderId);
        if (id !== undefined && submissionId !== undefined) {
          this.#submissions.set(submissionId, id);
          trim(this.#submissions);
        }
      } else if (operation.operationId === "getSubmission" && submissionId !== undefined) {
        id = this.#submissions.get(submissionId);
      }
      if (id === undefined || submission.status !== "completed") return;
      if (submissionId !== undefined) this.#submissions.delete(submissionId);
      const orderNumber = submission.order?.orderNumber;
      if (!Number.isSafeInteger(orderNumber) || (orderNumber as number) <= 0) return;
      this.learn(orderNumber as number, id);
      onLearnt(orderNumber as number, id);
    });
  }
}

/** A partnerOrderId as the API document allows it (1 to 100 characters); undefined otherwise. */
export function partnerOrderIdOf(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length <= 100 ? value : undefined;
}

function trim(map: Map<unknown, unknown>): void {
  while (map.size > REMEMBERED) map.delete(map.keys().next().value);
}
