import { PartnerOrders } from "../client";
import { RequestValidationError } from "../core/errors";
import { diagnose } from "../internal/diagnose";
import { SweepHeldError } from "../sync/errors";
import { int, parseCommandLine, USAGE, UsageError } from "./args";
import { listConsumers, resetConsumerCommand } from "./consumers";
import { dashboard } from "./dashboard";
import { status, sync } from "./mirror";
import { cliLogger, Output } from "./output";
import { sandbox } from "./sandbox";
import { submit, waitForSubmission } from "./submit";

/** Runs the command line and sets the exit code; output to a closed pipe ends it quietly. */
export async function main(args: string[]): Promise<void> {
  const out = new Output({
    json: args.includes("--json"),
    stdout: process.stdout,
    stderr: process.stderr,
    tty: process.stderr.isTTY === true,
  });
  let longRunning = false;
  // The reader went away (`| head -1`): nothing more can be shown, so stop now, successfully. The
  // mirror's commands stop on their own, after the write under way.
  out.closed.addEventListener("abort", () => {
    if (!longRunning) process.exit(0);
  });
  try {
    const parsed = parseCommandLine(args);
    longRunning = ["sync", "sandbox", "dashboard"].includes(parsed.positionals[0] ?? "");
    process.exitCode = await dispatch(parsed, out);
  } catch (error) {
    process.exitCode = report(error, out);
  }
  if (out.closed.aborted) process.exitCode = 0;
}

async function dispatch(
  { values, positionals }: ReturnType<typeof parseCommandLine>,
  out: Output,
): Promise<number> {
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    out.text(USAGE);
    return values.help ? 0 : 2;
  }
  const client = () => {
    try {
      return new PartnerOrders({
        baseUrl: values["base-url"],
        clientId: values["client-id"],
        clientSecret: values["client-secret"],
        logger: cliLogger(out),
      });
    } catch (error) {
      // A missing or malformed base URL or credential: how the command was called.
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  };
  const number = (text: string | undefined, what: string) => {
    if (text === undefined) throw new UsageError(`${what} is missing`);
    return int(text, what) as number;
  };

  switch (`${command} ${sub ?? ""}`.trim()) {
    case "me":
      out.one(await client().me());
      return 0;
    case "orders list":
      for await (const order of client().orders.list({
        siteId: int(values.site, "--site"),
        status: values.status,
      }))
        out.line(order);
      return 0;
    case "orders get":
      out.one(await client().orders.get(number(rest[0], "order number")));
      return 0;
    case "orders items":
      for await (const item of client().orders.items(number(rest[0], "order number")))
        out.line(item);
      return 0;
    case "orders shipments":
      for await (const shipment of client().orders.shipments(number(rest[0], "order number")))
        out.line(shipment);
      return 0;
    case "products list":
      for await (const product of client().products.list({ siteId: int(values.site, "--site") }))
        out.line(product);
      return 0;
    case "submissions wait":
      if (rest[0] === undefined) throw new UsageError("submissions wait needs a submission id");
      return waitForSubmission(client(), rest[0], values, out);
    case "status":
      return status(client, values, out);
    case "consumers":
      return listConsumers(client, values, out);
    case "consumers reset":
      if (rest.length > 1) throw new UsageError("consumers reset takes one NAME");
      return resetConsumerCommand(client, rest[0], values, out);
    case "sandbox":
      return sandbox(values, out);
    case "dashboard":
      return dashboard(client, values, out);
  }
  if (command === "quote" && sub !== undefined) {
    out.one(await client().products.quote(sub, number(rest[0], "quantity")));
    return 0;
  }
  if (command === "submit" && sub !== undefined) return submit(client(), sub, values, out);
  if (command === "sync" && sub === undefined) return sync(client(), values, out);
  throw new UsageError(`unknown command: ${positionals.join(" ")}`);
}

/** Prints what went wrong, once, without a stack; returns the exit code. */
export function report(error: unknown, out: Output): number {
  if (error instanceof UsageError) {
    out.error(undefined, error.message, undefined);
    if (!out.json) out.diagnostic(`\n${USAGE}`);
    return 2;
  }
  if (error instanceof SweepHeldError) {
    out.error(
      "sweep_held",
      `another process holds the sweep (${error.holder}, since ${error.since ?? "a time it did not record"}); no pass was made`,
      error.hint,
      { holder: error.holder, since: error.since },
    );
    return 4;
  }
  const { code, message, hint } = diagnose(error);
  const fields: Record<string, unknown> = {};
  if (error instanceof RequestValidationError) fields.violations = error.violations;
  for (const key of ["status", "requestId"] as const) {
    const value = (error as Record<string, unknown> | null)?.[key];
    if (typeof value === "number" || typeof value === "string") fields[key] = value;
  }
  out.error(code, message, hint, fields);
  return error instanceof RequestValidationError ? 2 : 1;
}
