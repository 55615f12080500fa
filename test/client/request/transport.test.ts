import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  AuthenticationError,
  RateLimitError,
  SubmissionTimeoutError,
} from "../../../src/core/errors";
import type { RateLimitGate } from "../../../src/core/rate-limit-gate";
import { harness, rejection } from "../../support/client";
import { FakeClock } from "../../support/fake-clock";
import { json, problem, stall } from "../../support/fake-server";
import { me, orderRequest, submission, submissionId } from "../../support/fixtures";
import { recorder } from "../../support/logger";

/** A fleet's gate kept on the test's clock, as Redis keeps it on its own. */
function memoryGate(clock: FakeClock): RateLimitGate & { closes: number[]; asked: number } {
  let openAt = 0;
  return {
    closes: [],
    asked: 0,
    async waitMs() {
      this.asked += 1;
      return Math.max(0, openAt - clock.now());
    },
    async close(ms) {
      this.closes.push(ms);
      openAt = Math.max(openAt, clock.now() + ms);
    },
  };
}

const pollRoute = `GET /v1/orders/submissions/${submissionId}`;

describe("the retrying line (info)", () => {
  it("carries the status, the problem's code, the attempt and the delay", async () => {
    const logger = recorder();
    const { client, server, clock } = harness({ logger, logLevel: "info" });
    server.on(
      "GET /v1/me",
      () => problem(503, "maintenance"),
      () => json(me),
    );
    await client.me();
    expect(clock.sleeps).toHaveLength(1);
    expect(logger.calls).toEqual([
      [
        "info",
        "[partner-orders] retrying GET /v1/me",
        {
          status: 503,
          code: "maintenance",
          attempt: 1,
          delayMs: Math.round(clock.sleeps[0] ?? -1),
        },
      ],
    ]);
  });
});

describe("the attempt line (debug)", () => {
  it("gives the status, the attempt and the time the attempt took on the client's clock", async () => {
    const logger = recorder();
    const { client, server, clock } = harness({ logger, logLevel: "debug" });
    await client.me().catch(() => undefined); // a token first, so the line below times the call only
    logger.calls.length = 0;
    server.on("GET /v1/me", () => {
      clock.advance(250);
      return json(me);
    });
    await client.me();
    expect(logger.calls).toEqual([
      ["debug", "[partner-orders] GET /v1/me", { status: 200, attempt: 1, ms: 250 }],
    ]);
  });

  it("names a POST as POST", async () => {
    const logger = recorder();
    const { client, server } = harness({ logger, logLevel: "debug", maxRetries: 0 });
    server.on("POST /v1/orders", () => problem(400, "invalid_request"));
    const error = (await rejection(client.orders.submit(orderRequest()))) as Error;
    expect(error.message).toMatch(/^POST \/v1\/orders\b/);
    const lines = logger.calls.filter(([, message]) => String(message).includes("/v1/orders"));
    expect(lines).toEqual([
      ["debug", "[partner-orders] POST /v1/orders", { status: 400, attempt: 1, ms: 0 }],
    ]);
  });
});

describe("a failure that is not the SDK's own error", () => {
  it("still reaches the caller as a PartnerOrdersError: APIConnectionError with the cause", async () => {
    const broken = new Error("the log sink is full");
    const logger = {
      ...recorder(),
      info: () => {
        throw broken;
      },
    };
    const { client, server } = harness({ logger, logLevel: "info" });
    server.on(
      "GET /v1/me",
      () => problem(503, "maintenance"),
      () => json(me),
    );
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe("GET /v1/me failed.");
    expect((error as Error).cause).toBe(broken);
  });
});

describe("a 401 on a call that sent no token", () => {
  it("is thrown at once: there is no token of its own to drop and retry without", async () => {
    const { client, server } = harness({ maxRetries: 3 });
    server.on("GET /v1/ping", () => problem(401, "invalid_token"));
    expect(await rejection(client.ping())).toBeInstanceOf(AuthenticationError);
    expect(server.to("GET /v1/ping")).toHaveLength(1);
    expect(server.tokenRequests).toHaveLength(0);
  });
});

describe("a success without a body", () => {
  it("a 204 gives undefined, not a JSON error", async () => {
    const { client, server } = harness();
    server.on("GET /v1/me", () => new Response(null, { status: 204 }));
    await expect(client.me()).resolves.toBeUndefined();
  });
});

/** A client on a fake server whose fleet gate runs on the client's clock. */
function gated(options: Record<string, unknown> = {}) {
  const clock = new FakeClock();
  const gate = memoryGate(clock);
  const logger = recorder();
  const h = harness({ clock, logger, logLevel: "info", rateLimitGate: gate, ...options });
  return { ...h, clock, gate, logger };
}

describe("the fleet's rate-limit gate", () => {
  it("open: the call is sent without a wait or a line", async () => {
    const { client, server, clock, gate, logger } = gated();
    server.on("GET /v1/me", () => json(me));
    await expect(client.me()).resolves.toEqual(me);
    expect(gate.asked).toBe(1);
    expect(clock.sleeps).toEqual([]);
    expect(logger.calls).toEqual([]);
    expect(server.apiRequests).toHaveLength(1);
  });

  it("closed by another process: waits what it says, with a line naming the call", async () => {
    const { client, server, clock, gate, logger } = gated();
    server.on("GET /v1/me", () => json(me));
    await gate.close(7_000);
    await expect(client.me()).resolves.toEqual(me);
    expect(clock.sleeps).toEqual([7_000]);
    expect(logger.calls).toEqual([
      [
        "info",
        "[partner-orders] waiting for the fleet's rate limit before GET /v1/me",
        { delayMs: 7_000 },
      ],
    ]);
  });

  it("closed past the 60 s ceiling: RateLimitError at once, saying why, nothing sent", async () => {
    const { client, server, clock, gate } = gated();
    server.on("GET /v1/me", () => json(me));
    await gate.close(90_500);
    const error = (await rejection(client.me())) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBe(91);
    expect(error.headers.get("retry-after")).toBe("91");
    expect(error.message).toBe(
      "GET /v1/me not sent: the fleet waits 91 s for the rate limit (Retry-After met by another process), longer than the 60 s ceiling.",
    );
    expect(server.apiRequests).toHaveLength(0);
    expect(clock.sleeps).toEqual([]);
  });

  it("a 429 with Retry-After closes it for the fleet; other failures leave it open", async () => {
    const { client, server, gate } = gated({ maxRetries: 0 });
    server.on("GET /v1/me", () => problem(503, "maintenance", {}, { "retry-after": "5" }));
    server.on("GET /v1/sites", () => problem(429, "rate_limit_exceeded"));
    await rejection(client.me());
    expect(await rejection(client.sites.list())).toBeInstanceOf(RateLimitError);
    expect(gate.closes).toEqual([]);
    server.on("GET /v1/sites", () =>
      problem(429, "rate_limit_exceeded", {}, { "retry-after": "4" }),
    );
    expect(await rejection(client.sites.list())).toBeInstanceOf(RateLimitError);
    expect(gate.closes).toEqual([4_000]);
  });

  class ReplyError extends Error {
    override name = "ReplyError";
  }

  it.each([
    ["an Error: its name only", new ReplyError("NOAUTH redis://:hunter2@cache:6379"), "ReplyError"],
    ["anything else: its type", "redis://:hunter2@cache:6379 refused", "string"],
  ])("unreadable: the call is sent, with a warning naming %s", async (_, cause, shown) => {
    const { client, server, clock, gate, logger } = gated();
    gate.waitMs = () => Promise.reject(cause);
    server.on("GET /v1/me", () => json(me));
    await expect(client.me()).resolves.toEqual(me);
    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(logger.calls).toEqual([
      [
        "warn",
        "[partner-orders] rate-limit gate unavailable; sending without it",
        { error: shown },
      ],
    ]);
  });

  it("unwritable after a 429: the RateLimitError is thrown, with a warning", async () => {
    const { client, server, gate, logger } = gated({ maxRetries: 0 });
    gate.close = () => Promise.reject(new ReplyError("READONLY"));
    server.on("GET /v1/me", () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "3" }));
    expect(await rejection(client.me())).toBeInstanceOf(RateLimitError);
    expect(logger.calls).toEqual([
      [
        "warn",
        "[partner-orders] rate-limit gate unavailable; sending without it",
        { error: "ReplyError" },
      ],
    ]);
  });
});

describe("the deadline of a wait bounds each attempt", () => {
  it("an attempt gets only the time left, not the client's timeoutMs", async () => {
    const { client, server, clock } = harness({ timeoutMs: 30_000 });
    server.on(pollRoute, stall(clock));
    const startedAt = clock.monotonic();
    const error = await rejection(client.submissions.wait(submissionId, { timeoutMs: 5_000 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect(clock.monotonic() - startedAt).toBe(5_000);
  });

  it("the time spent waiting for the fleet's gate counts against it", async () => {
    const { client, server, clock, gate } = gated({ timeoutMs: 30_000 });
    server.on(pollRoute, stall(clock));
    await gate.close(8_000);
    const startedAt = clock.monotonic();
    const error = await rejection(client.submissions.wait(submissionId, { timeoutMs: 10_000 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect(clock.sleeps).toEqual([8_000]);
    expect(clock.monotonic() - startedAt).toBe(10_000);
  });

  it("a gate that opens exactly at the deadline is waited for, then nothing is sent", async () => {
    const { client, server, clock, gate } = gated();
    server.on(pollRoute, () => json(submission("completed")));
    await gate.close(5_000);
    const error = await rejection(client.submissions.wait(submissionId, { timeoutMs: 5_000 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect(clock.sleeps).toEqual([5_000]);
    expect(server.apiRequests).toHaveLength(0);
  });

  it("a gate that opens after the deadline is not waited for, and nothing is sent", async () => {
    const { client, server, clock, gate } = gated();
    server.on(pollRoute, () => json(submission("completed")));
    await gate.close(6_000);
    const startedAt = clock.monotonic();
    const error = await rejection(client.submissions.wait(submissionId, { timeoutMs: 5_000 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect(clock.sleeps).not.toContain(6_000);
    expect(clock.monotonic() - startedAt).toBeLessThanOrEqual(5_000);
    expect(server.apiRequests).toHaveLength(0);
  });
});

describe("the path in messages and log lines", () => {
  it("has its parameters filled in", async () => {
    const logger = recorder();
    const { client, server } = harness({ logger, logLevel: "debug", maxRetries: 0 });
    server.on("GET /v1/orders/1042", () => problem(404, "order_not_found"));
    const error = (await rejection(client.orders.get(1042))) as Error;
    expect(error.message).toMatch(/^GET \/v1\/orders\/1042\b/);
    const lines = logger.calls.filter(([, message]) => String(message).includes("/v1/orders"));
    expect(lines).toEqual([
      ["debug", "[partner-orders] GET /v1/orders/1042", { status: 404, attempt: 1, ms: 0 }],
    ]);
  });
});
