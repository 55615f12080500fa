#!/usr/bin/env node
/**
 * `partner-orders sandbox [--port N] [--seed N] [--host H]`: starts the in-memory Partner Order
 * Service on loopback and prints, as environment lines, what a client needs to talk to it.
 */
import { createSandbox } from "./testing/index";

const USAGE = "usage: partner-orders sandbox [--port N] [--seed N] [--host H]";

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args: string[]): Promise<void> {
  if (args[0] !== "sandbox" || args.includes("--help")) {
    console.error(USAGE);
    process.exitCode = args.includes("--help") ? 0 : 2;
    return;
  }
  const port = Number(option(args, "--port") ?? 0);
  const seed = Number(option(args, "--seed") ?? 1);
  if (!Number.isInteger(port) || port < 0 || !Number.isInteger(seed)) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const sandbox = createSandbox({ seed });
  const { url } = await sandbox.listen({ port, host: option(args, "--host") ?? "127.0.0.1" });
  // The sandbox's fixed, published test credentials: printing them is the point of this command.
  console.log(`PARTNER_ORDERS_BASE_URL=${url}`);
  console.log(`PARTNER_ORDERS_CLIENT_ID=${sandbox.credentials.clientId}`);
  console.log(`PARTNER_ORDERS_CLIENT_SECRET=${sandbox.credentials.clientSecret}`);
  console.log("# Partner Order Service sandbox ready (in memory; Ctrl-C to stop)");
  const stop = () => {
    void sandbox.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
