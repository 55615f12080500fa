import { PartnerOrders } from "partner-orders";
import {
  createSandbox,
  type Listener,
  type Sandbox,
  type SandboxOptions,
} from "partner-orders/testing";
import { FakeClock } from "../support/fake-clock";

/** A sandbox serving POST /v1/mcp over real HTTP on loopback, and a client with an instant clock. */
export async function mcpSandbox(options: SandboxOptions = {}): Promise<{
  sandbox: Sandbox;
  listener: Listener;
  clock: FakeClock;
  client(extra?: ConstructorParameters<typeof PartnerOrders>[0]): PartnerOrders;
}> {
  const sandbox = createSandbox(options);
  const listener = await sandbox.listen();
  const clock = new FakeClock(Date.now());
  return {
    sandbox,
    listener,
    clock,
    client: (extra = {}) =>
      new PartnerOrders({ baseUrl: listener.url, ...sandbox.credentials, clock, ...extra }),
  };
}

/** The JSON text of a tool result's first content block. */
export function toolJson(result: unknown): unknown {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content;
  const first = content?.[0];
  if (first?.type !== "text" || first.text === undefined) throw new Error("no text content");
  return JSON.parse(first.text);
}
