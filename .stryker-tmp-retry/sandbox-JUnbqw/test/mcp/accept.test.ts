// @ts-nocheck
import { createSandbox } from "partner-orders/testing";
import { afterAll, describe, expect, it } from "vitest";
import { tokenFor } from "../sandbox/helpers";

/**
 * POST /v1/mcp under the MCP Streamable HTTP transport: every POST must accept both
 * application/json and text/event-stream, or the answer is 406 with the transport's JSON-RPC error
 * (spec/openapi.yaml, POST /v1/mcp 406).
 */
const sandbox = createSandbox();
afterAll(() => sandbox.close());

async function listTools(accept: string | undefined) {
  const response = await sandbox.fetch("/v1/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${await tokenFor(sandbox)}`,
      "content-type": "application/json",
      ...(accept === undefined ? {} : { accept }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: await response.json(),
  };
}

describe("POST /v1/mcp Accept header", () => {
  it.each([
    ["no Accept header", undefined],
    ["only application/json", "application/json"],
    ["only text/event-stream", "text/event-stream"],
  ])("answers 406 with a JSON-RPC error for %s", async (_case, accept) => {
    const { status, type, body } = await listTools(accept);
    expect(status).toBe(406);
    expect(type).toMatch(/^application\/json/);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    expect(body.error.message).toMatch(/application\/json and text\/event-stream/);
  });

  it("answers 200 when both types are accepted", async () => {
    const { status, body } = await listTools("application/json, text/event-stream");
    expect(status).toBe(200);
    expect(Array.isArray(body.result.tools)).toBe(true);
  });
});
