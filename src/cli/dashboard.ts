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
    // Listening for Ctrl-C before the URL is printed: a signal sent as soon as it appears stops
    // the server instead of killing the process.
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = () => {
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
    try {
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
    } catch (error) {
      stop();
      throw error;
    }
    const address = server.address();
    // Stopped before it listened: nothing to print.
    if (address === null || typeof address === "string") return 0;
    const url = `http://127.0.0.1:${address.port}/`;
    if (out.json) out.line({ url });
    else out.text(`Mirror status page: ${url} (read-only, this machine only; Ctrl-C to stop)`);
    await stopped;
    return 0;
  });
}
