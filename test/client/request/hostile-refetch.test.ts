import { describe, expect, it } from "vitest";
import { PartnerOrdersError, RequestValidationError } from "../../../src/core/errors";
import type { WebhookEvent } from "../../../src/webhooks/events";
import { harness, rejection } from "../../support/client";

// API.md, Errors: every thrown error extends PartnerOrdersError, a bad argument included.
describe("client.refetch with something that is not a webhook event", () => {
  it.each([
    ["null", null],
    ["undefined", undefined],
    ["{}", {}],
    ["a string", "order.status_changed"],
    ["an array", []],
    ["a type that is not a string", { type: 5, eventId: "e1" }],
  ])("%s is a RequestValidationError, nothing sent", async (_, event) => {
    const { client, server } = harness();
    const error = await rejection(() => client.refetch(event as unknown as WebhookEvent));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as Error).message).toContain("webhook event");
    expect(server.requests).toHaveLength(0);
  });
});
