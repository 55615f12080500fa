import { describe, expect, it } from "vitest";
import { ServiceUnavailableError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json, problem } from "../../support/fake-server";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

// API.md, Operations: "every call's promise has .withResponse() giving { data, response }" and
// every call takes `maxRetries`; the two waits are calls of that table like the others.
const pollPath = `/v1/orders/submissions/${submissionId}`;
const pollRoute = `GET ${pollPath}`;
const pending = (status: string, code = 201) =>
  json(submission(status), code, { location: pollPath, "retry-after": "2" });

describe("the waits are calls like the others", () => {
  it("submitOrderAndWait(...).withResponse() gives the terminal submission and its response", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => pending("queued"));
    server.on(pollRoute, () => json(completedSubmission(), 200, { "x-ratelimit-remaining": "41" }));
    const { data, response } = await client.submitOrderAndWait(orderRequest()).withResponse();
    expect(data.status).toBe("completed");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("41");
  });

  it("a terminal first answer: .withResponse() gives the POST's response", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => json(completedSubmission(), 201));
    const { data, response } = await client.submitOrderAndWait(orderRequest()).withResponse();
    expect(data.submissionId).toBe(submissionId);
    expect(response.status).toBe(201);
  });

  it("submissions.wait(id).withResponse() gives the terminal submission and its response", async () => {
    const { client, server } = harness();
    server.on(
      pollRoute,
      () => pending("processing", 200),
      () => json(completedSubmission(), 200),
    );
    const { data, response } = await client.submissions.wait(submissionId).withResponse();
    expect(data.status).toBe("completed");
    expect(response.ok).toBe(true);
    await expect(client.submissions.wait(submissionId)).resolves.toMatchObject({
      status: "completed",
    });
  });

  it("maxRetries bounds the retries of each request of a wait", async () => {
    const { client, server } = harness({ maxRetries: 5 });
    server.on("POST /v1/orders", () => problem(503, "service_unavailable"));
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { maxRetries: 0 }));
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(server.to("POST /v1/orders")).toHaveLength(1);

    server.on(pollRoute, () => problem(503, "service_unavailable"));
    const again = await rejection(client.submissions.wait(submissionId, { maxRetries: 1 }));
    expect(again).toBeInstanceOf(ServiceUnavailableError);
    expect(server.to(pollRoute)).toHaveLength(2);
  });
});
