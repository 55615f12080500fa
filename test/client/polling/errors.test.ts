import { describe, expect, it } from "vitest";
import { APIUserAbortError, NotFoundError, SubmissionTimeoutError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json, problem } from "../../support/fake-server";
import { orderRequest, submission, submissionId } from "../../support/fixtures";

const pollPath = `/v1/orders/submissions/${submissionId}`;
const pollRoute = `GET ${pollPath}`;
const pending = (status: string, statusCode = 200) =>
  json(submission(status), statusCode, { location: pollPath, "retry-after": "2" });

describe("errors inside a wait", () => {
  it("a poll answered 404 is thrown as NotFoundError, not turned into a timeout", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => pending("queued", 201));
    server.on(pollRoute, () => problem(404, "submission_not_found"));
    const error = await rejection(client.submitOrderAndWait(orderRequest()));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).not.toBeInstanceOf(SubmissionTimeoutError);
  });

  it("a sleep that would end exactly at the deadline is not started: no time would be left to poll", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () => pending("queued", 201));
    server.on(pollRoute, () => pending("processing"));
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { timeoutMs: 4000 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect(clock.sleeps).toEqual([2000]);
    expect(server.to(pollRoute)).toHaveLength(1);
  });

  it("the timeout says how long the wait lasted", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => pending("queued", 201));
    server.on(pollRoute, () => pending("processing"));
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { timeoutMs: 5000 }));
    expect((error as Error).message).toContain("still processing after 4000 ms");
  });

  it("an abort during a sleep between polls says the wait was aborted", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on("POST /v1/orders", () => pending("queued", 201));
    const error = await rejection(
      client.submitOrderAndWait(orderRequest(), {
        signal: controller.signal,
        onPoll: () => controller.abort(),
      }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).message).toMatch(
      /^The wait for submission \S+ was aborted; the order was submitted/,
    );
    expect((error as APIUserAbortError).submissionId).toBeTruthy();
    expect(server.to(pollRoute)).toHaveLength(0);
  });
});
