import { describe, expect, it, vi } from "vitest";
import { RequestValidationError, SubmissionTimeoutError } from "../../../src/core/errors";
import type { Submission } from "../../../src/core/models";
import { validateOrderRequest } from "../../../src/core/validation";
import { harness, rejection } from "../../support/client";
import { json } from "../../support/fake-server";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

// Every importer of the validation module sees the same spy, so the count covers the whole client.
vi.mock("../../../src/core/validation", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../../src/core/validation")>();
  return { ...original, validateOrderRequest: vi.fn(original.validateOrderRequest) };
});

// API.md, "Waiting for a submission": both waits are one waiter, with one 120 s default deadline,
// and the order request is checked once, every broken rule in one RequestValidationError.
const pollPath = `/v1/orders/submissions/${submissionId}`;
const pollRoute = `GET ${pollPath}`;
const pending = (status: string, code = 201) =>
  json(submission(status), code, { location: pollPath, "retry-after": "1" });
const defaultDeadlineMs = 120_000;
const hintMs = 1_000;

describe("submitOrderAndWait checks the order request once", () => {
  it("validates the order request a single time on the way to the service", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => json(completedSubmission(), 201));
    vi.mocked(validateOrderRequest).mockClear();
    await client.submitOrderAndWait(orderRequest());
    expect(validateOrderRequest).toHaveBeenCalledTimes(1);
  });

  it("reports the order's broken rules and the headers' in one error, sending nothing", async () => {
    const { client, server } = harness();
    const error = await rejection(
      client.submitOrderAndWait(
        { ...orderRequest(), partnerOrderId: "" },
        { headers: { Authorization: "Bearer mine" } },
      ),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    const paths = (error as RequestValidationError).violations.map((v) => v.path);
    expect(paths).toContain("partnerOrderId");
    expect(paths.some((p) => p.startsWith("headers"))).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it("submissions.wait reports a bad id and bad headers in one error, sending nothing", async () => {
    const { client, server } = harness();
    const error = await rejection(
      client.submissions.wait("not-a-uuid", { headers: { Accept: "text/plain" } }),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    const violations = (error as RequestValidationError).violations;
    expect(violations.some((v) => v.path.startsWith("headers"))).toBe(true);
    expect(violations.some((v) => !v.path.startsWith("headers"))).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

describe("one default deadline for both waits", () => {
  it("submitOrderAndWait gives up at 120 s when no timeoutMs is given", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () => pending("queued"));
    server.on(pollRoute, () => pending("processing", 200));
    const start = clock.monotonic();
    const error = await rejection(client.submitOrderAndWait(orderRequest()));
    expectDefaultTimeout(error, clock.monotonic() - start);
  });

  it("submissions.wait gives up at 120 s when no timeoutMs is given", async () => {
    const { client, server, clock } = harness();
    server.on(pollRoute, () => pending("processing", 200));
    const start = clock.monotonic();
    const error = await rejection(client.submissions.wait(submissionId, { timeoutMs: undefined }));
    expectDefaultTimeout(error, clock.monotonic() - start);
  });
});

/** Timed out with the last state, within the default deadline, where the next sleep would pass it. */
function expectDefaultTimeout(error: unknown, elapsedMs: number): void {
  expect(error).toBeInstanceOf(SubmissionTimeoutError);
  const timeout = error as SubmissionTimeoutError<Submission>;
  expect(timeout.submissionId).toBe(submissionId);
  expect(timeout.submission?.status).toBe("processing");
  expect(elapsedMs).toBeLessThanOrEqual(defaultDeadlineMs);
  expect(elapsedMs + hintMs).toBeGreaterThanOrEqual(defaultDeadlineMs);
}
