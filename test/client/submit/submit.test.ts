import { describe, expect, it } from "vitest";
import {
  APIUserAbortError,
  PartnerOrdersError,
  SubmissionTimeoutError,
} from "../../../src/core/errors";
import type { Submission } from "../../../src/core/models";
import { harness, rejection } from "../../support/client";
import { json, problem } from "../../support/fake-server";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

const pollPath = `/v1/orders/submissions/${submissionId}`;
const pollRoute = `GET ${pollPath}`;
const pending = (status: string, status_code = 201) =>
  json(submission(status), status_code, { location: pollPath, "retry-after": "2" });

describe("orders.submit", () => {
  it("201: created, with the Location and Retry-After to poll", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => pending("queued"));
    const result = await client.orders.submit(orderRequest());
    expect(result).toEqual({
      submission: submission("queued"),
      created: true,
      location: pollPath,
      retryAfterSeconds: 2,
    });
    const post = server.at(0, "POST /v1/orders");
    expect(post.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(post.body)).toEqual(orderRequest());
  });

  it("200: the partnerOrderId existed, not created", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => json(completedSubmission(), 200));
    const result = await client.orders.submit(orderRequest());
    expect(result.created).toBe(false);
    expect(result.location).toBeNull();
    expect(result.retryAfterSeconds).toBeNull();
    expect(result.submission.status).toBe("completed");
  });
});

describe("submitOrderAndWait", () => {
  it("polls the Location, sleeping what Retry-After says, until completed", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () => pending("queued"));
    server.on(
      pollRoute,
      () => pending("processing", 200),
      () => json(completedSubmission()),
    );
    const seen: string[] = [];
    const result = await client.submitOrderAndWait(orderRequest(), {
      onPoll: (s) => seen.push(s.status),
    });
    expect(result.status).toBe("completed");
    expect(result.order?.totalPrice.toString()).toBe("12.5");
    expect(seen).toEqual(["queued", "processing", "completed"]);
    expect(clock.sleeps).toEqual([2000, 2000]);
    expect(server.to(pollRoute)).toHaveLength(2);
    expect(server.to("POST /v1/orders")).toHaveLength(1);
  });

  it("sleeps as long as a longer Retry-After asks", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, { location: pollPath, "retry-after": "5" }),
    );
    server.on(pollRoute, () => json(completedSubmission()));
    await client.submitOrderAndWait(orderRequest());
    expect(clock.sleeps).toEqual([5000]);
  });

  it("returns a terminal first answer without polling", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () => json(completedSubmission(), 201));
    expect((await client.submitOrderAndWait(orderRequest())).status).toBe("completed");
    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("returns failed, not thrown, with its errors", async () => {
    const { client, server } = harness();
    const errors = [{ code: "order_rejected", detail: "No stock.", partnerLineId: "line-1" }];
    server.on("POST /v1/orders", () => pending("queued"));
    server.on(pollRoute, () => json(submission("failed", { errors })));
    const result = await client.submitOrderAndWait(orderRequest());
    expect(result.status).toBe("failed");
    expect(result.errors).toEqual(errors);
  });

  it("throws SubmissionTimeoutError with the last state when the deadline comes", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () => pending("queued"));
    server.on(pollRoute, () => pending("processing", 200));
    const start = clock.monotonic();
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { timeoutMs: 5000 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    const timeout = error as SubmissionTimeoutError<Submission>;
    expect(timeout.submissionId).toBe(submissionId);
    expect(timeout.submission?.status).toBe("processing");
    // A sleep that would pass the deadline is never started.
    expect(clock.sleeps).toEqual([2000, 2000]);
    expect(clock.monotonic() - start).toBeLessThanOrEqual(5000);
  });

  it("bounds the POST's retries by the same deadline", async () => {
    const { client, server, clock } = harness({ maxRetries: 5 });
    server.on("POST /v1/orders", () => problem(503, "service_unavailable"));
    const start = clock.monotonic();
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { timeoutMs: 1500 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect(server.to("POST /v1/orders")).toHaveLength(2);
    expect(clock.monotonic() - start).toBeLessThanOrEqual(1500);
  });

  it("honours an AbortSignal between polls", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on("POST /v1/orders", () => pending("queued"));
    server.on(pollRoute, () => pending("processing", 200));
    const error = await rejection(
      client.submitOrderAndWait(orderRequest(), {
        signal: controller.signal,
        onPoll: (s) => {
          if (s.status === "processing") controller.abort();
        },
      }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(server.to(pollRoute)).toHaveLength(1);
  });

  it("refuses a Location on another origin and never sends anything there", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, {
        location: `https://evil.test${pollPath}`,
        "retry-after": "2",
      }),
    );
    const error = await rejection(client.submitOrderAndWait(orderRequest()));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toContain("https://evil.test");
    expect(server.requests.filter((r) => r.url.origin !== "https://api.test")).toEqual([]);
    expect(server.apiRequests).toHaveLength(1);
  });

  it("a 503 then success on the POST sends the identical body twice and yields one submission", async () => {
    const { client, server } = harness();
    server.on(
      "POST /v1/orders",
      () => problem(503, "service_unavailable"),
      () => json(completedSubmission(), 200),
    );
    const result = await client.submitOrderAndWait(orderRequest());
    expect(result.submissionId).toBe(submissionId);
    const bodies = server.to("POST /v1/orders").map((r) => r.body);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toBe(bodies[1]);
  });
});

describe("a Location that is not a URL", () => {
  it("is a PartnerOrdersError naming the id to resume with, never a bare TypeError", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, { location: "http://[bad", "retry-after": "2" }),
    );
    const error = await rejection(client.submitOrderAndWait(orderRequest()));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toContain(submissionId);
    expect(server.apiRequests).toHaveLength(1);
  });
});

describe("submissions.wait", () => {
  it("resumes a wait from a submission id", async () => {
    const { client, server, clock } = harness();
    server.on(
      pollRoute,
      () => pending("processing", 200),
      () => json(completedSubmission()),
    );
    const seen: string[] = [];
    const result = await client.submissions.wait(submissionId, {
      onPoll: (s) => seen.push(s.status),
    });
    expect(result.status).toBe("completed");
    expect(seen).toEqual(["processing", "completed"]);
    expect(clock.sleeps).toEqual([2000]);
  });

  it("times out with the id to resume again", async () => {
    const { client, server } = harness();
    server.on(pollRoute, () => pending("queued", 200));
    const error = await rejection(client.submissions.wait(submissionId, { timeoutMs: 3000 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect((error as SubmissionTimeoutError).submissionId).toBe(submissionId);
  });
});
