import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SyncReport } from "partner-orders/sync";
import { type Setup, setup } from "../support.js";

/** A mirror on a real SQLite file, synced once from the sandbox, and a way to end it all. */
export interface Synced extends Setup {
  report: SyncReport;
  path: string;
  cleanup(): Promise<void>;
}

export async function syncedMirror(): Promise<Synced> {
  const dir = mkdtempSync(join(tmpdir(), "partner-orders-page-"));
  const path = join(dir, "orders.db");
  const s = setup(path);
  const report = await s.mirror.sync();
  return {
    ...s,
    report,
    path,
    async cleanup() {
      await s.mirror.close();
      await s.sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Node server for `handler` on `host`, and its base URL. */
export async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
  host = "127.0.0.1",
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  const name = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${name}:${port}/`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a server-sent event stream until `match` is seen in it (the test's timeout bounds it). */
export async function readUntil(
  body: ReadableStream<Uint8Array>,
  match: (text: string) => boolean,
): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (!match(text)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return text;
}
