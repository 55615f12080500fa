import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, FIXTURES, type Listener, type Sandbox } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, cliPath, killAll, root, cli as run, STACK_FRAME, start } from "./support";

/** The built CLI as a shell runs it, against the sandbox over loopback HTTP. */
let sandbox: Sandbox;
let listener: Listener;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  sandbox = createSandbox({
    syncWaitMs: 5_000,
    submissionTimings: { processingAfterMs: 10, completeAfterMs: 50 },
  });
  listener = await sandbox.listen();
  dir = mkdtempSync(join(tmpdir(), "partner-orders-cli-"));
});
afterAll(async () => {
  killAll();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = () => ({
  PARTNER_ORDERS_BASE_URL: listener.url,
  PARTNER_ORDERS_CLIENT_ID: sandbox.credentials.clientId,
  PARTNER_ORDERS_CLIENT_SECRET: sandbox.credentials.clientSecret,
});
const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
  run(args, { ...env(), ...extra });

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
    expect(missing.stderr).toMatch(/^error \(order_not_found\): GET \/v1\/orders\/999999999/);
    const lines = await cli(["orders", "list", "--site", String(FIXTURES.sites.main), "--json"]);
    const rows = lines.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.every((r) => r.siteId === FIXTURES.sites.main)).toBe(true);
  }, 30_000);

  it("submit validates first: every violation listed once, nothing sent", async () => {
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
    const lines = result.stderr.trimEnd().split("\n");
    for (const path of ["partnerOrderId", "lines[0].productId", "lines[0].quantity"]) {
      expect(lines.filter((l) => l.startsWith(`  ${path}: `))).toHaveLength(1);
    }
    expect(lines[0]).toBe("error (invalid_request): Invalid order request; nothing was sent:");
    expect(sandbox.counters.requests["POST /v1/orders"] ?? 0).toBe(before);
    // --json: one object, with the violations as data.
    const json = await cli(["submit", file, "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({
      code: "invalid_request",
      violations: expect.arrayContaining([expect.objectContaining({ path: "lines[0].quantity" })]),
    });
  }, 30_000);

  it("submit --wait follows the submission to completed and exits 0", async () => {
    const file = join(dir, "good.json");
    writeFileSync(file, JSON.stringify(order(`cli-${Date.now()}`)));
    const result = await cli(["submit", file, "--wait", "--timeout", "60s", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed" });
  }, 30_000);

  it("submit --wait whose deadline comes before any answer says no id came and that re-running is safe (exit 3)", async () => {
    // The service holds the POST until the order is finished or its own wait ends; here both come
    // long after the CLI's deadline, so the CLI never learns a submission id.
    const slow = createSandbox({
      syncWaitMs: 60_000,
      submissionTimings: { processingAfterMs: 60_000, completeAfterMs: 120_000 },
    });
    const slowListener = await slow.listen();
    try {
      const file = join(dir, "slow.json");
      writeFileSync(file, JSON.stringify(order(`cli-slow-${Date.now()}`)));
      const result = await cli(["submit", file, "--wait", "--timeout", "300ms"], {
        PARTNER_ORDERS_BASE_URL: slowListener.url,
      });
      expect(result.code).toBe(3);
      expect(result.stderr).not.toContain("submissions wait");
      expect(result.stderr).toContain("no submission id was received");
      expect(result.stderr).toContain("may or may not exist");
      expect(result.stderr).toMatch(
        /^hint: re-running the same command with the same file is safe: the same partnerOrderId and body never create a second order$/m,
      );
      // Another order: the same one again may be answered at once with the original submission.
      const other = join(dir, "slow-json.json");
      writeFileSync(other, JSON.stringify(order(`cli-slow-json-${Date.now()}`)));
      const json = await cli(["submit", other, "--wait", "--timeout", "300ms", "--json"], {
        PARTNER_ORDERS_BASE_URL: slowListener.url,
      });
      expect(json.code, json.stderr).toBe(3);
      expect(JSON.parse(json.stderr)).toMatchObject({
        code: "submission_timeout",
        submissionId: null,
      });
    } finally {
      await slow.close();
    }
  }, 30_000);

  it("a base URL with a path says the base URL answers no token endpoint, not that the token is bad", async () => {
    const result = await cli(["me"], { PARTNER_ORDERS_BASE_URL: `${listener.url}/v1` });
    expect(result.code).toBe(1);
    const [first, hint, ...more] = result.stderr.trimEnd().split("\n");
    expect(first).toMatch(/^error \(token_endpoint_not_found\): /);
    expect(hint).toBe(
      "hint: the base URL answers no token endpoint: check --base-url / PARTNER_ORDERS_BASE_URL (it should be the API root, without a path)",
    );
    expect(more).toEqual([]);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, 30_000);

  it("a refused client secret says so, with a hint, and never prints the secret", async () => {
    const result = await cli(["me"], { PARTNER_ORDERS_CLIENT_SECRET: "not-the-secret-123" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error \(invalid_client\): /);
    expect(result.stderr).toMatch(/^hint: .*client id and secret/m);
    expect(result.stderr).not.toContain("not-the-secret-123");
  }, 30_000);

  it("a missing credential is a usage error (exit 2) naming what is missing", async () => {
    const result = await cli(["me"], { PARTNER_ORDERS_CLIENT_SECRET: undefined });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: clientSecret is missing\./);
    expect(result.stderr).toContain("usage: partner-orders");
    expect(result.stdout).toBe("");
  }, 30_000);

  it("a bad argument is a usage error (exit 2), never a crash", async () => {
    const result = await cli(["orders", "get", "abc"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("order number must be a whole number");
    expect((await cli(["frobnicate"])).code).toBe(2);
    expect((await cli(["orders", "list", "--site", ""])).code).toBe(2);
    const usage = await cli(["--help"]);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^ {2}status \[--db orders\.db \| --postgres URL\]/m);
    expect(usage.stdout).toMatch(/^exit codes:[\s\S]*4 another process holds the sweep$/m);
  }, 30_000);
});

describe("output to a closed pipe", () => {
  let big: Sandbox;
  let bigListener: Listener;
  beforeAll(async () => {
    big = createSandbox();
    // About 400 kB of output: far more than a pipe holds, so the CLI must write after `head` left.
    for (let i = 0; i < 1_000; i++) big.admin.placeOrder({ siteId: FIXTURES.sites.main });
    bigListener = await big.listen();
  });
  afterAll(() => big.close());

  it("`orders list | head -1` ends quietly with exit 0", async () => {
    const shell = spawn(
      "bash",
      [
        "-c",
        `"${process.execPath}" "${cliPath}" orders list | head -1; echo "cli=\${PIPESTATUS[0]}" >&2`,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          ...env(),
          PARTNER_ORDERS_BASE_URL: bigListener.url,
        },
      },
    );
    let stdout = "";
    let stderr = "";
    shell.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    shell.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    await new Promise((resolve) => shell.on("close", resolve));
    expect(stdout).toMatch(/^orderNumber: \d+ {2}status: /);
    expect(stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toBe("cli=0\n");
  }, 30_000);
});

describe("partner-orders sandbox", () => {
  it("refuses a host that is not loopback (exit 2), before listening", async () => {
    for (const host of ["0.0.0.0", "::", "10.1.2.3", "example.com", "127.0.0.1.example.com"]) {
      const result = await run(["sandbox", "--host", host, "--port", "0"]);
      expect(result.code, host).toBe(2);
      expect(result.stderr).toContain(`--host ${JSON.stringify(host)} is not a loopback address`);
      expect(result.stdout).toBe("");
    }
  }, 30_000);

  it("serves on a loopback host until SIGTERM, then exits 0", async () => {
    const sb = start(["sandbox", "--host", "127.0.0.2", "--port", "0"]);
    await sb.waitFor("stdout", /ready/);
    const url = /^PARTNER_ORDERS_BASE_URL=(\S+)$/m.exec(sb.stdout)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    const ping = await fetch(`${url}/v1/ping`);
    expect(ping.status).not.toBe(404);
    sb.proc.kill("SIGTERM");
    expect((await sb.done).code).toBe(0);
  }, 30_000);
});

// A pseudo-terminal from util-linux `script`: the CLI sees a real terminal on stdout and stderr.
const hasScript = process.platform === "linux" && spawnSync("script", ["--version"]).status === 0;

describe.skipIf(!hasScript)("on a terminal", () => {
  it("submit --wait draws its progress as one rewritten line, erased before the result", async () => {
    const file = join(dir, "tty.json");
    writeFileSync(file, JSON.stringify(order(`cli-tty-${Date.now()}`)));
    const slowish = createSandbox({
      syncWaitMs: 0,
      submissionTimings: { processingAfterMs: 10, completeAfterMs: 400 },
    });
    const l = await slowish.listen();
    try {
      const command = [process.execPath, cliPath, "submit", file, "--wait"]
        .map((a) => `'${a}'`)
        .join(" ");
      const proc = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
        cwd: root,
        env: { ...process.env, ...env(), PARTNER_ORDERS_BASE_URL: l.url },
      });
      let output = "";
      proc.stdout.on("data", (c: Buffer) => {
        output += c.toString();
      });
      const code = await new Promise((resolve) => proc.on("close", resolve));
      expect(code).toBe(0);
      const erase = "\r\x1b[2K";
      expect(output).toMatch(/submission [0-9a-f-]+: (queued|processing)/);
      expect(output).toContain(`${erase}submission `);
      // The line is erased before the result, which then starts on a clean line.
      const result = output.indexOf("status: completed");
      expect(result).toBeGreaterThan(output.lastIndexOf(`${erase}submission `));
      const last = output.lastIndexOf(erase) + erase.length;
      expect(output.slice(last, result)).toMatch(/^\w+: /);
    } finally {
      await slowish.close();
    }
  }, 30_000);
});
