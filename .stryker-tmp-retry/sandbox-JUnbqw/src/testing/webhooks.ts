// @ts-nocheck
import type { SandboxEvent, SandboxState } from "./state";

/**
 * Webhook deliveries as the service makes them (API document, "Events"): one POST of a JSON body per
 * event and endpoint, signed when the endpoint has a secret, a single attempt with a 5-second limit,
 * and a failure recorded, never retried.
 */

/** A webhook endpoint to register with `sandbox.webhooks.register()`, as staff would. */
export interface WebhookRegistrationInput {
  /** Where deliveries are POSTed. */
  url: string;
  /** Signing secret; without one, deliveries carry no `Platform-Signature` (API document, Signing). */
  secret?: string;
  /** Whose grant scopes the deliveries. @default the default partner */
  partnerId?: string;
  /** Sends the delivery instead of the global `fetch` (e.g. straight into a handler under test). */
  fetch?: (request: Request) => Promise<Response>;
}

/** A registered webhook endpoint (its secret is never returned). */
export interface WebhookRegistration {
  /** The registration's id, for `unregister()` and `sendTestEvent({ registrationId })`. */
  id: string;
  /** Where deliveries are POSTed. */
  url: string;
  /** The partner whose granted sites scope the deliveries. */
  partnerId: string;
  /** Whether deliveries carry a `Platform-Signature` (a secret was given). */
  signed: boolean;
}

/** One delivery attempt, as recorded in `sandbox.webhooks.deliveries`. */
export interface WebhookDelivery {
  /** The registration it was sent to. */
  registrationId: string;
  /** The URL it was POSTed to. */
  url: string;
  /** The event's id, also sent as `Platform-Event-Id`; `test_...` for the synthetic test event. */
  eventId: string;
  /** The event type, e.g. `shipment.shipped`. */
  type: string;
  /** The exact bytes sent, as text. */
  body: string;
  /** Headers sent (the signature included; the secret never is). */
  headers: Record<string, string>;
  /**
   * `delivered` on a 2xx; `failed` on anything else, a refused connection or no answer within
   * `timeoutMs`. Never retried, as the service never retries (API document, Events rule 2).
   */
  state: "pending" | "delivered" | "failed";
  /** HTTP status of the answer, when there was one. */
  status?: number;
  /** Why a delivery failed without an answer (refused, timed out). */
  error?: string;
  /** True for the extra copy sent by the `duplicate` behaviour. */
  duplicate: boolean;
}

/** How the sandbox delivers webhooks: the service's delivery rules that tests need to meet. */
export interface WebhookBehaviour {
  /** Send every delivery twice with the same eventId (rule 4: duplicates are possible). @default false */
  duplicate?: boolean;
  /** Deliver the events of one burst newest first (rule 3: no ordering guarantee). @default false */
  outOfOrder?: boolean;
  /** The acknowledgement limit, in real milliseconds. @default 5000 */
  timeoutMs?: number;
}

interface Registered extends WebhookRegistration {
  secret?: string;
  send?: (request: Request) => Promise<Response>;
}

type Payload = SandboxEvent & { eventId: string; occurredAt: string };

export class WebhookHub {
  readonly deliveries: WebhookDelivery[] = [];
  private readonly registrations: Registered[] = [];
  private queue: Array<{ payload: Payload; targets: Registered[] }> = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly inflight = new Set<Promise<void>>();
  private behaviour: Required<WebhookBehaviour>;
  private nextId = 1;

  constructor(
    private readonly state: SandboxState,
    private readonly defaultPartnerId: string,
    behaviour: WebhookBehaviour = {},
  ) {
    this.behaviour = { duplicate: false, outOfOrder: false, timeoutMs: 5000, ...behaviour };
  }

  /** Staff-side registration (there is no self-service one, API document "Events"). */
  register(input: WebhookRegistrationInput): WebhookRegistration {
    const partnerId = input.partnerId ?? this.defaultPartnerId;
    if (!this.state.partners.has(partnerId))
      throw new Error(`No partner ${partnerId} in the sandbox`);
    const registered: Registered = {
      id: `wh_${this.nextId++}`,
      url: input.url,
      partnerId,
      signed: input.secret !== undefined,
      ...(input.secret !== undefined ? { secret: input.secret } : {}),
      ...(input.fetch ? { send: input.fetch } : {}),
    };
    this.registrations.push(registered);
    return { id: registered.id, url: registered.url, partnerId, signed: registered.signed };
  }

  unregister(id: string): void {
    const i = this.registrations.findIndex((r) => r.id === id);
    if (i >= 0) this.registrations.splice(i, 1);
  }

  configure(behaviour: WebhookBehaviour): void {
    this.behaviour = { ...this.behaviour, ...behaviour };
  }

  /** Queues an event for every registration whose partner is granted the site (rule 7). */
  publish(event: SandboxEvent): void {
    const targets = this.registrations.filter((r) => {
      const partner = this.state.partners.get(r.partnerId);
      return partner && !partner.disabled && partner.grantedSiteIds.includes(event.siteId);
    });
    const { type, siteId, orderNumber, ...optional } = event;
    const eventId = crypto.randomUUID();
    this.enqueue(
      { eventId, type, occurredAt: this.occurredAt(), siteId, orderNumber, ...optional },
      targets,
    );
  }

  /** The synthetic test event: eventId `test_...`, siteId and orderNumber 0 (API document). */
  sendTestEvent(options: { registrationId?: string; type?: string } = {}): string {
    const eventId = `test_${crypto.randomUUID()}`;
    const targets = this.registrations.filter(
      (r) => !options.registrationId || r.id === options.registrationId,
    );
    const payload: Payload = {
      eventId,
      type: options.type ?? "order.status_changed",
      occurredAt: this.occurredAt(),
      siteId: 0,
      orderNumber: 0,
    };
    this.enqueue(payload, targets);
    return eventId;
  }

  /** Whether a delivery is queued or in flight. */
  get busy(): boolean {
    return this.queue.length > 0 || this.inflight.size > 0;
  }

  /** Resolves once every queued and in-flight delivery has finished. */
  async settled(): Promise<void> {
    while (this.queue.length > 0 || this.inflight.size > 0) {
      if (this.queue.length > 0) this.flush();
      await Promise.all([...this.inflight]);
    }
  }

  dispose(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.queue = [];
  }

  private occurredAt(): string {
    return new Date(this.state.clock.now()).toISOString();
  }

  /** Events of one synchronous burst are delivered together, so `outOfOrder` can reverse them. */
  private enqueue(payload: Payload, targets: Registered[]): void {
    if (targets.length === 0) return;
    this.queue.push({ payload, targets });
    this.flushTimer ??= setTimeout(() => this.flush(), 0);
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.behaviour.outOfOrder ? this.queue.reverse() : this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const run = (async () => {
      for (const { payload, targets } of batch) {
        for (const target of targets) {
          await this.deliver(target, payload, false);
          if (this.behaviour.duplicate) await this.deliver(target, payload, true);
        }
      }
    })();
    this.inflight.add(run);
    void run.finally(() => this.inflight.delete(run));
  }

  private async deliver(target: Registered, payload: Payload, duplicate: boolean): Promise<void> {
    // partnerOrderId only for the partner that submitted the order through the API (rule 7).
    const { submittedBy, partnerOrderId, shipmentNumber, ...rest } = payload;
    const body = JSON.stringify({
      ...rest,
      ...(partnerOrderId !== undefined && submittedBy === target.partnerId
        ? { partnerOrderId }
        : {}),
      ...(shipmentNumber !== undefined ? { shipmentNumber } : {}),
    });
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "platform-event-id": payload.eventId,
    };
    if (target.secret !== undefined) {
      const t = Math.floor(this.state.clock.now() / 1000);
      headers["platform-signature"] = `t=${t},v1=${await sign(target.secret, t, body)}`;
    }
    const delivery: WebhookDelivery = {
      registrationId: target.id,
      url: target.url,
      eventId: payload.eventId,
      type: payload.type,
      body,
      headers,
      state: "pending",
      duplicate,
    };
    this.deliveries.push(delivery);
    this.state.counters.webhookDeliveries++;
    try {
      const controller = new AbortController();
      const request = new Request(target.url, {
        method: "POST",
        headers,
        body,
        signal: controller.signal,
      });
      const response = await withTimeout(
        (target.send ?? fetch)(request),
        this.behaviour.timeoutMs,
        controller,
      );
      await response.body?.cancel().catch(() => {});
      delivery.status = response.status;
      // Any 2xx is an acknowledgement; anything else failed and is never retried (rule 2).
      delivery.state = response.ok ? "delivered" : "failed";
    } catch (error) {
      delivery.state = "failed";
      delivery.error =
        error instanceof Error ? `${error.name}: ${error.message}` : "delivery failed";
    }
  }
}

/**
 * The `v1` signature as the service computes it (API document, "Signing"): HMAC-SHA256 keyed with
 * the secret over `<t>` + `.` + the body's UTF-8 bytes, lowercase hex. Written here on node:crypto
 * rather than borrowed from the SDK's verifier, so a mistake in what the SDK signs or checks cannot
 * cancel out against the same mistake in the sandbox. Loaded lazily, as the sandbox's other Node
 * modules are, so importing the testing entry stays free of Node built-ins.
 */
async function sign(secret: string, t: number, body: string): Promise<string> {
  const { createHmac } = await import("node:crypto");
  return createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest("hex");
}

/** No answer within the limit is a failure (rule 2), whether or not the sender honours the signal. */
function withTimeout<T>(work: Promise<T>, ms: number, controller: AbortController): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DOMException(`no answer within ${ms} ms`, "TimeoutError");
      controller.abort(error);
      reject(error);
    }, ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
