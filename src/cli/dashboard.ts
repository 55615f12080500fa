/** `dashboard`: the mirror's status page on 127.0.0.1 until Ctrl-C. */

import { createServer } from "node:http";
import type { PartnerOrders } from "../client";
import { MirrorError } from "../sync/errors";
import { int, UsageError, type Values } from "./args";
import { withStore } from "./mirror";
import type { Output } from "./output";

/**
 * `dashboard [--db FILE | --postgres URL] [--port N]`: serves `mirrorStatusPage` of the store on
 * 127.0.0.1 only (the page has no `authorize` here, so it answers only this machine anyway), prints
 * its URL, and stops on Ctrl-C. It reads the store only: no credential is needed.
 */
export async function dashboard(
  client: () => PartnerOrders,
  values: Values,
  out: Output,
  signal?: AbortSignal,
): Promise<number> {
  const port = int(values.port ?? "0", "--port") as number;
  if (port > 65_535) throw new UsageError(`--port must be 0 to 65535, not ${port}`);
  return withStore(client, values, "dashboard", async (mirror) => {
    const { mirrorStatusPage } = await import("../sync/status-page/handler");
    const page = mirrorStatusPage(mirror);
    const server = createServer((req, res) => void page.node(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          new MirrorError(
            "dashboard_listen_failed",
            `cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}`,
            { hint: "give --port a free port, or --port 0 for any" },
          ),
        ),
      );
      server.listen(port, "127.0.0.1", resolve);
    });
    const { port: bound } = server.address() as { port: number };
    const url = `http://127.0.0.1:${bound}/`;
    if (out.json) out.line({ url });
    else out.text(`Mirror status page: ${url} (read-only, this machine only; Ctrl-C to stop)`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        signal?.removeEventListener("abort", stop);
        page.close();
        server.close(() => resolve());
        server.closeAllConnections();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      signal?.addEventListener("abort", stop, { once: true });
    });
    return 0;
  });
}
