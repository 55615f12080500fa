import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../../../src/core/errors";
import { harness } from "../../support/client";

describe("invalid arguments", () => {
  it("reject the returned promise instead of throwing, and send nothing", async () => {
    const { client, server } = harness();
    // Each call must return normally; only the promise carries the error.
    const calls = [
      () => client.orders.get(-1),
      () => client.products.get("../x"),
      () => client.products.quote("SLO_1", 0),
      () => client.submissions.get("not-a-uuid"),
      () => client.orders.submit({} as never),
    ];
    const promises = calls.map((call) => call());
    const settled = await Promise.allSettled(promises);
    for (const result of settled) {
      expect(result.status).toBe("rejected");
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(RequestValidationError);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("reject a list when it is first used, with nothing sent", async () => {
    const { client, server } = harness();
    const list = client.orders.list({ limit: 0 });
    const error = await list.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).violations[0]?.path).toBe("limit");
    await expect(client.orders.shipments(1.5).pages().next()).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("a submissions list with a bad status or limit returns normally and rejects when used", async () => {
    const { client, server } = harness();
    for (const params of [{ status: "done" as never }, { limit: 0 }, { cursor: "" }]) {
      let list: ReturnType<typeof client.submissions.list> | undefined;
      expect(() => {
        list = client.submissions.list(params);
      }).not.toThrow();
      const error = await list?.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(RequestValidationError);
    }
    await expect(
      client.submissions.list({ limit: -1 })[Symbol.asyncIterator]().next(),
    ).rejects.toBeInstanceOf(RequestValidationError);
    expect(server.requests).toHaveLength(0);
  });
});
