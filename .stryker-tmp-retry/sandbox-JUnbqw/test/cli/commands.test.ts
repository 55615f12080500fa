// @ts-nocheck
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSandbox, FIXTURES, type Listener, type Sandbox } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The CLI as a shell runs it, against the sandbox over loopback HTTP. */
const root = fileURLToPath(new URL("../../", import.meta.url));
let sandbox: Sandbox;
let listener: Listener;
let dir: string;

beforeAll(async () => {
  sandbox = createSandbox({
    syncWaitMs: 5_000,
    submissionTimings: { processingAfterMs: 10, completeAfterMs: 50 },
  });
  listener = await sandbox.listen();
  dir = mkdtempSync(join(tmpdir(), "partner-orders-cli-"));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}) {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], {
    cwd: root,
    env: {
      ...process.env,
      PARTNER_ORDERS_BASE_URL: listener.url,
      PARTNER_ORDERS_CLIENT_ID: sandbox.credentials.clientId,
      PARTNER_ORDERS_CLIENT_SECRET: sandbox.credentials.clientSecret,
      ...env,
    },
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  proc.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    proc.on("exit", (code) => resolve({ code, stdout, stderr })),
  );
}

const order = (partnerOrderId: string, extra: Record<string, unknown> = {}) => ({
  siteId: FIXTURES.sites.main,
  partnerOrderId,
  shipTo: {
    name: "A",
    address1: "1 Road",
    city: "Town",
    state: "CA",
    postalCode: "90001",
    country: "US",
  },
  lines: [{ productId: FIXTURES.products.pod, partnerLineId: "l1", quantity: 2 }],
  ...extra,
});

describe("partner-orders commands", () => {
  it("reads an order as JSON, and exits non-zero with the error's code", async () => {
    const got = await cli(["orders", "get", String(FIXTURES.orders.tracking), "--json"]);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ orderNumber: FIXTURES.orders.tracking });
    const missing = await cli(["orders", "get", "999999999"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("order_not_found");
    const lines = await cli(["orders", "list", "--site", String(FIXTURES.sites.main), "--json"]);
    const rows = lines.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.every((r) => r.siteId === FIXTURES.sites.main)).toBe(true);
  }, 30_000);

  it("submit validates first: every violation listed, nothing sent", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify(
        order("", { lines: [{ productId: "nope", partnerLineId: "l1", quantity: 0 }] }),
      ),
    );
    const before = sandbox.counters.requests["POST /v1/orders"] ?? 0;
    const result = await cli(["submit", file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("partnerOrderId");
    expect(result.stderr).toContain("lines[0].productId");
    expect(result.stderr).toContain("lines[0].quantity");
    expect(sandbox.counters.requests["POST /v1/orders"] ?? 0).toBe(before);
  }, 30_000);

  it("submit --wait follows the submission to completed and exits 0", async () => {
    const file = join(dir, "good.json");
    writeFileSync(file, JSON.stringify(order(`cli-${Date.now()}`)));
    const result = await cli(["submit", file, "--wait", "--timeout", "60s", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed" });
  }, 30_000);

  it("sync --once fills a SQLite file and prints each change as a JSON line", async () => {
    const db = join(dir, "orders.db");
    const result = await cli(["sync", "--once", "--db", db, "--json"]);
    expect(result.code).toBe(0);
    const changes = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(changes.filter((c) => c.type === "order.added").length).toBeGreaterThan(100);
    const again = await cli(["sync", "--once", "--db", db]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("changesWritten: 0");
  }, 60_000);

  it("a bad argument is a usage error (exit 2), never a crash", async () => {
    const result = await cli(["orders", "get", "abc"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("order number must be a whole number");
    expect((await cli(["frobnicate"])).code).toBe(2);
  }, 30_000);
});
