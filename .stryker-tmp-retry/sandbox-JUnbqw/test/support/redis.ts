// @ts-nocheck
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

/** True when a redis-server binary is on PATH; CI installs one (.ci/run), so there it must be. */
export function redisAvailable(): boolean {
  const found = spawnSync("redis-server", ["--version"]).status === 0;
  if (!found && process.env.CI) throw new Error("CI: redis-server is missing");
  if (!found) console.warn("Skipping the Redis tests: no redis-server binary on PATH.");
  return found;
}

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** A throwaway redis-server on a free loopback port, with no persistence. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const server: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    server.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) resolve();
    });
    server.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (server.exitCode !== null) return;
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill();
      await exited;
    },
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
