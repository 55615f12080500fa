#!/usr/bin/env node
// @ts-nocheck
/**
 * `partner-orders`: the SDK from a shell, for scripts and operators (API.md, "Command line"). Every
 * command reads PARTNER_ORDERS_BASE_URL, PARTNER_ORDERS_CLIENT_ID and PARTNER_ORDERS_CLIENT_SECRET
 * (or --base-url, --client-id, --client-secret), prints text on a terminal and JSON with --json,
 * and exits non-zero with the error's code on failure.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { PartnerOrders } from "./client";
import { RequestValidationError, SubmissionTimeoutError } from "./core/errors";
import type { OrderRequest, Submission } from "./core/models";

const USAGE = `usage: partner-orders <command> [options]

  me                                      who the credential is
  orders list [--site N] [--status S]     every order (JSON lines with --json)
  orders get N | items N | shipments N    one order, its lines, its shipments
  products list [--site N]                the orderable catalog
  quote ID QTY                            a price for a product at a quantity
  submit order.json [--wait] [--timeout 120s]
                                          validate (nothing sent if invalid), submit, wait
  submissions wait ID [--timeout 120s]    wait for a submission to finish
  sync [--db orders.db | --postgres URL] [--once]
                                          keep a local mirror; --json prints each change
  sandbox [--port N] [--seed N] [--host H]
                                          an in-memory service on loopback

  --base-url URL  --client-id ID  --client-secret SECRET  --json  --help`;

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
  port: { type: "string" },
  seed: { type: "string" },
  host: { type: "string" },
} as const;

type Values = ReturnType<typeof parse>["values"];
const parse = (args: string[]) =>
  parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });

class UsageError extends Error {}

async function main(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const out = printer(values.json === true);
  if (command === "sandbox") return sandbox(values);
  const client = () =>
    new PartnerOrders({
      baseUrl: values["base-url"],
      clientId: values["client-id"],
      clientSecret: values["client-secret"],
    });

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
      out.one(await client().orders.get(int(rest[0], "order number") as number));
      return 0;
    case "orders items":
      for await (const item of client().orders.items(int(rest[0], "order number") as number))
        out.line(item);
      return 0;
    case "orders shipments":
      for await (const shipment of client().orders.shipments(
        int(rest[0], "order number") as number,
      ))
        out.line(shipment);
      return 0;
    case "products list":
      for await (const product of client().products.list({ siteId: int(values.site, "--site") }))
        out.line(product);
      return 0;
    case `quote ${sub}`:
      if (command !== "quote") break;
      out.one(await client().products.quote(sub as string, int(rest[0], "quantity") as number));
      return 0;
    case `submit ${sub}`:
      if (command !== "submit") break;
      return submit(client(), sub as string, values, out);
    case "submissions wait":
      return finished(
        await waitFor(
          () => client().submissions.wait(rest[0] ?? "", { timeoutMs: duration(values.timeout) }),
          out,
        ),
        out,
      );
    case "sync":
    case `sync ${sub}`:
      if (command !== "sync") break;
      return sync(client(), values, out);
  }
  throw new UsageError(`unknown command: ${positionals.join(" ")}`);
}

async function submit(
  client: PartnerOrders,
  file: string,
  values: Values,
  out: Printer,
): Promise<number> {
  let request: OrderRequest;
  try {
    request = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(
      `cannot read ${file} as JSON: ${error instanceof Error ? error.message : error}`,
    );
  }
  if (!values.wait) {
    const { submission, created } = await client.orders.submit(request);
    out.one({ ...submission, created });
    return submission.status === "failed" ? 1 : 0;
  }
  const submission = await waitFor(
    () =>
      client.submitOrderAndWait(request, {
        timeoutMs: duration(values.timeout),
        onPoll: (s) => out.progress(`submission ${s.submissionId}: ${s.status}`),
      }),
    out,
  );
  return finished(submission, out);
}

/** A wait that times out prints how to resume it instead of failing bare. */
async function waitFor(
  wait: () => Promise<Submission>,
  out: Printer,
): Promise<Submission | undefined> {
  try {
    return await wait();
  } catch (error) {
    if (!(error instanceof SubmissionTimeoutError)) throw error;
    out.error(
      `still ${error.submission?.status ?? "unanswered"} at the deadline; resume with:\n  partner-orders submissions wait ${error.submissionId}`,
      { code: "submission_timeout", submissionId: error.submissionId },
    );
    return undefined;
  }
}

/** `completed` exits 0, `failed` 1 (with its errors), a timeout 3. */
function finished(submission: Submission | undefined, out: Printer): number {
  if (!submission) return 3;
  out.one(submission);
  return submission.status === "completed" ? 0 : 1;
}

async function sync(client: PartnerOrders, values: Values, out: Printer): Promise<number> {
  const { OrderMirror, postgresStore, sqliteStore } = await import("./sync/index");
  const store = values.postgres
    ? postgresStore(values.postgres)
    : sqliteStore(values.db ?? "orders.db");
  const mirror = new OrderMirror({ client, store });
  const stop = new AbortController();
  // Ctrl-C: the loop ends after the write under way (each write is one transaction).
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const printing = (async () => {
      let count = 0;
      for await (const change of mirror.changes({ signal: stop.signal })) {
        count++;
        if (values.json) out.line(change);
        else out.progress(`${count} changes; last: ${change.type} ${change.orderNumber}`);
      }
    })();
    if (values.once) {
      const report = await mirror.sync();
      stop.abort();
      await printing;
      if (!values.json) out.one(report);
    } else {
      await mirror.run({ signal: stop.signal });
      await printing;
    }
    return 0;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    stop.abort();
    await mirror.close();
  }
}

async function sandbox(values: Values): Promise<number> {
  const port = int(values.port ?? "0", "--port") as number;
  const seed = int(values.seed ?? "1", "--seed") as number;
  const { createSandbox } = await import("./testing/index");
  const server = createSandbox({ seed });
  const { url } = await server.listen({ port, host: values.host ?? "127.0.0.1" });
  // The sandbox's fixed, published test credentials: printing them is the point of this command.
  console.log(`PARTNER_ORDERS_BASE_URL=${url}`);
  console.log(`PARTNER_ORDERS_CLIENT_ID=${server.credentials.clientId}`);
  console.log(`PARTNER_ORDERS_CLIENT_SECRET=${server.credentials.clientSecret}`);
  console.log("# Partner Order Service sandbox ready (in memory; Ctrl-C to stop)");
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return await new Promise<number>(() => undefined);
}

function int(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new UsageError(`${what} must be a whole number, not ${JSON.stringify(text)}`);
  return value;
}

/** `120s`, `2m`, `500ms` or plain seconds. */
function duration(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match)
    throw new UsageError(`--timeout must look like 120s, 2m or 500ms, not ${JSON.stringify(text)}`);
  const scale = match[2] === "ms" ? 1 : match[2] === "m" ? 60_000 : 1_000;
  return Number(match[1]) * scale;
}

interface Printer {
  one(value: unknown): void;
  line(value: unknown): void;
  progress(text: string): void;
  error(message: string, fields: Record<string, unknown>): void;
}

function printer(json: boolean): Printer {
  const tty = process.stderr.isTTY === true;
  const text = (value: unknown) =>
    typeof value === "object" && value !== null
      ? Object.entries(JSON.parse(JSON.stringify(value)) as Record<string, unknown>)
          .map(
            ([k, v]) =>
              `${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`,
          )
          .join("\n")
      : String(value);
  return {
    one: (value) => console.log(json ? JSON.stringify(value, null, 2) : text(value)),
    line: (value) =>
      console.log(json ? JSON.stringify(value) : `${text(value).replaceAll("\n", "  ")}`),
    // Progress goes to stderr, and only on a terminal, so piped output stays data.
    progress: (line) => {
      if (tty) process.stderr.write(`\r\x1b[2K${line}`);
    },
    error: (message, fields) => {
      if (tty) process.stderr.write("\n");
      console.error(json ? JSON.stringify({ error: message, ...fields }) : `error: ${message}`);
    },
  };
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const json = process.argv.includes("--json");
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    const code = (error as { code?: unknown }).code;
    const status = (error as { status?: unknown }).status;
    const violations = error instanceof RequestValidationError ? error.violations : undefined;
    const message = error instanceof Error ? error.message : String(error);
    if (json) console.error(JSON.stringify({ error: message, code, status, violations }));
    else {
      console.error(`error${typeof code === "string" ? ` (${code})` : ""}: ${message}`);
      for (const v of violations ?? []) console.error(`  ${v.path}: ${v.message}`);
    }
    process.exitCode = violations ? 2 : 1;
  },
);
