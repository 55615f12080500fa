// @ts-nocheck
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGTERM");
  child = undefined;
});

/** Starts the bin through tsx and resolves the environment lines it prints. */
function start(args: string[]): Promise<Record<string, string>> {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], { cwd: root });
  child = proc;
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("ready")) {
        resolve(
          Object.fromEntries(
            out
              .split("\n")
              .filter((l) => l.includes("="))
              .map((l) => l.split("=", 2) as [string, string]),
          ),
        );
      }
    });
    proc.on("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

describe("partner-orders sandbox", () => {
  it("starts a server and prints its base URL and a ready client id and secret", async () => {
    const env = await start(["sandbox", "--seed", "7"]);
    expect(env.PARTNER_ORDERS_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.PARTNER_ORDERS_CLIENT_ID).toBe("sandbox-client");
    expect(env.PARTNER_ORDERS_CLIENT_SECRET).toBe("sandbox-secret");
    const ping = await fetch(`${env.PARTNER_ORDERS_BASE_URL}/v1/ping`);
    expect(ping.status).toBe(200);
    const token = await fetch(`${env.PARTNER_ORDERS_BASE_URL}/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: env.PARTNER_ORDERS_CLIENT_ID ?? "",
        client_secret: env.PARTNER_ORDERS_CLIENT_SECRET ?? "",
      }),
    });
    expect(token.status).toBe(200);
  });

  it("refuses an unknown command with a usage line", async () => {
    const proc = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "serve"], { cwd: root });
    let err = "";
    proc.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    const code = await new Promise<number | null>((r) => proc.on("exit", r));
    expect(code).toBe(2);
    expect(err).toContain("usage: partner-orders <command>");
    expect(err).toContain("sandbox [--port N] [--seed N]");
  });
});
