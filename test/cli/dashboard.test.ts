import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, type Listener, type Sandbox } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, cli, killAll, STACK_FRAME, start } from "./support";

/** `dashboard` as a shell runs it: the built CLI serving the status page of a synced SQLite file. */
let sandbox: Sandbox;
let listener: Listener;
let dir: string;
let db: string;

beforeAll(async () => {
  assertBuilt();
  sandbox = createSandbox();
  listener = await sandbox.listen();
  dir = mkdtempSync(join(tmpdir(), "partner-orders-cli-dashboard-"));
  db = join(dir, "orders.db");
  const synced = await cli(["sync", "--once", "--db", db], credentials());
  if (synced.code !== 0) throw new Error(synced.stderr);
}, 60_000);
afterAll(async () => {
  killAll();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function credentials() {
  return {
    PARTNER_ORDERS_BASE_URL: listener.url,
    PARTNER_ORDERS_CLIENT_ID: sandbox.credentials.clientId,
    PARTNER_ORDERS_CLIENT_SECRET: sandbox.credentials.clientSecret,
  };
}

describe("partner-orders dashboard", () => {
  it("serves the page on 127.0.0.1, prints its URL, shows no secret, and stops on Ctrl-C", async () => {
    const running = start(["dashboard", "--db", db, "--port", "0"], credentials());
    await running.waitFor("stdout", /http:\/\/127\.0\.0\.1:\d+\//);
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(running.stdout)?.[0] as string;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toMatch(/<dd data-figure="openOrders">\d+<\/dd>/);
    expect(html).toMatch(/<dd data-figure="lastSweep">[^<]+ finished<\/dd>/);
    const view = await (await fetch(new URL("status.json", url))).text();
    for (const text of [html, view]) {
      expect(text).not.toContain(sandbox.credentials.clientSecret);
    }
    running.proc.kill("SIGINT");
    const done = await running.done;
    expect(done.code, done.stderr).toBe(0);
  }, 60_000);

  it("--json prints the URL as JSON", async () => {
    const running = start(["dashboard", "--db", db, "--json"], credentials());
    await running.waitFor("stdout", /\n/);
    expect(JSON.parse(running.stdout)).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
    });
    running.proc.kill("SIGTERM");
    expect((await running.done).code).toBe(0);
  }, 60_000);

  it("names a database file that does not exist, and refuses a port out of range", async () => {
    const missing = await cli(["dashboard", "--db", join(dir, "never.db")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error \(store_not_found\): /);
    expect(missing.stderr).not.toMatch(STACK_FRAME);
    const port = await cli(["dashboard", "--db", db, "--port", "70000"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port must be 0 to 65535");
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port: used } = taken.address() as { port: number };
    const busy = await cli(["dashboard", "--db", db, "--port", String(used)]);
    taken.close();
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(
      /^error \(dashboard_listen_failed\): cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/,
    );
    expect(busy.stderr).toMatch(/^hint: /m);
  }, 60_000);
});
