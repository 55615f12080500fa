import { isIPv4, isIPv6 } from "node:net";
import { parseArgs } from "node:util";

export const USAGE = `usage: partner-orders <command> [options]

  me                                      who the credential is
  orders list [--site N] [--status S]     every order (JSON lines with --json)
  orders get N | items N | shipments N    one order, its lines, its shipments
  products list [--site N]                the orderable catalog
  quote ID QTY                            a price for a product at a quantity
  submit order.json [--wait] [--timeout 120s]
                                          validate (nothing sent if invalid), submit, wait
  submissions wait ID [--timeout 120s]    wait for a submission to finish
  sync [--db orders.db | --postgres URL] [--site N,N] [--once] [--full]
                                          keep a local mirror until Ctrl-C (--once: one pass;
                                          --full: re-read every order first, closed ones too);
                                          --json prints each change, then a summary
  status [--db orders.db | --postgres URL]
                                          the mirror's health, read from its store only
  consumers [--db orders.db | --postgres URL]
                                          each consumer of the changes: position and lag
  consumers reset NAME --to now|beginning [--db orders.db | --postgres URL]
                                          move a consumer past the newest change, or to the
                                          oldest kept one
  dashboard [--db orders.db | --postgres URL] [--port N]
                                          the mirror's read-only status page on 127.0.0.1
  sandbox [--port N] [--seed N] [--host H]
                                          an in-memory service on loopback

  --base-url URL  --client-id ID  --client-secret SECRET  --json  --help

exit codes: 0 done; 1 an error, or a submission that failed; 2 a usage error or an invalid
order; 3 a submission still unfinished at the deadline; 4 another process holds the sweep`;

const OPTIONS = {
  "base-url": { type: "string" },
  "client-id": { type: "string" },
  "client-secret": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean" },
  site: { type: "string" },
  status: { type: "string" },
  wait: { type: "boolean" },
  timeout: { type: "string" },
  db: { type: "string" },
  postgres: { type: "string" },
  once: { type: "boolean" },
  full: { type: "boolean" },
  port: { type: "string" },
  seed: { type: "string" },
  host: { type: "string" },
  to: { type: "string" },
} as const;

export type Parsed = ReturnType<typeof parse>;
export type Values = Parsed["values"];

/** A mistake in how the command was called: printed with the usage text, exit code 2. */
export class UsageError extends Error {}

export function parseCommandLine(args: string[]): Parsed {
  try {
    return parse(args);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
}

export function int(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  // Number("") is 0: an empty value is no number.
  if (text.trim() === "" || !Number.isSafeInteger(value) || value < 0)
    throw new UsageError(`${what} must be a whole number, not ${JSON.stringify(text)}`);
  return value;
}

/** `101,102`: one or more site ids. */
export function ints(text: string | undefined, what: string): number[] | undefined {
  if (text === undefined) return undefined;
  return text.split(",").map((part) => int(part.trim(), what) as number);
}

/** `120s`, `2m`, `500ms` or plain seconds. */
export function duration(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match)
    throw new UsageError(`--timeout must look like 120s, 2m or 500ms, not ${JSON.stringify(text)}`);
  const scale = match[2] === "ms" ? 1 : match[2] === "m" ? 60_000 : 1_000;
  return Number(match[1]) * scale;
}

/**
 * The sandbox answers with fixed, published credentials and no TLS: reachable from another machine
 * it would be an open service. Only 127.0.0.0/8, ::1 and localhost are accepted.
 */
export function loopbackHost(host: string | undefined): string {
  if (host === undefined) return "127.0.0.1";
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const loopback =
    bare.toLowerCase() === "localhost" ||
    (isIPv4(bare) && bare.startsWith("127.")) ||
    // Every spelling of ::1 (0:0::1, the full form) normalises to [::1] in a URL.
    (isIPv6(bare) && new URL(`http://[${bare}]/`).hostname === "[::1]");
  if (!loopback) {
    throw new UsageError(
      `--host ${JSON.stringify(host)} is not a loopback address: the sandbox listens only on 127.0.0.0/8, ::1 or localhost`,
    );
  }
  return bare;
}
