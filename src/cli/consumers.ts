/** `consumers` and `consumers reset`: the change stream's readers from a shell. */

import type { PartnerOrders } from "../client";
import { MirrorError } from "../sync/errors";
import { UsageError, type Values } from "./args";
import { formatConsumers } from "./format";
import { withStore } from "./mirror";
import type { Output } from "./output";

/** `consumers [--db FILE | --postgres URL]`: each named consumer, its position and lag. */
export async function listConsumers(
  client: () => PartnerOrders,
  values: Values,
  out: Output,
): Promise<number> {
  const consumers = await withStore(client, values, "consumers", (mirror) => mirror.consumers());
  if (out.json) for (const consumer of consumers) out.line(consumer);
  else out.text(consumers.length ? formatConsumers(consumers).join("\n") : "no consumers");
  return 0;
}

/**
 * `consumers reset NAME --to now|beginning`: moves a consumer on (after `changes_expired`, or to
 * skip a backlog). Only a consumer the store knows: a mistyped name would otherwise make a new one.
 */
export async function resetConsumerCommand(
  client: () => PartnerOrders,
  name: string | undefined,
  values: Values,
  out: Output,
): Promise<number> {
  if (name === undefined || name === "") throw new UsageError("consumers reset needs a NAME");
  const to = values.to;
  if (to !== "now" && to !== "beginning") {
    throw new UsageError(
      `consumers reset needs --to now or --to beginning${to === undefined ? "" : `, not ${JSON.stringify(to)}`}`,
    );
  }
  const { before, after } = await withStore(client, values, "consumers", async (mirror) => {
    const known = await mirror.consumers();
    const previous = known.find((c) => c.name === name);
    if (!previous) {
      throw new MirrorError(
        "consumer_not_found",
        `no consumer named ${JSON.stringify(name)} in this store${known.length ? ` (there are: ${known.map((c) => c.name).join(", ")})` : " (it has none)"}`,
        {
          hint: "`partner-orders consumers` lists them; a consumer is made when it first reads changes",
        },
      );
    }
    await mirror.resetConsumer(name, to);
    const now = (await mirror.consumers()).find((c) => c.name === name) ?? previous;
    return { before: previous, after: now };
  });
  if (out.json) out.one({ ...after, previousPosition: before.position });
  else out.text(`${formatConsumers([after])[0]} (was at ${before.position})`);
  return 0;
}
