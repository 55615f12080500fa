import { int, loopbackHost, UsageError, type Values } from "./args";
import type { Output } from "./output";

/** `sandbox`: an in-memory service on loopback until Ctrl-C. */
export async function sandbox(values: Values, out: Output): Promise<number> {
  const port = int(values.port ?? "0", "--port") as number;
  if (port > 65_535) throw new UsageError(`--port must be 0 to 65535, not ${port}`);
  const seed = int(values.seed ?? "1", "--seed") as number;
  const host = loopbackHost(values.host);
  const { createSandbox } = await import("../testing/index");
  const server = createSandbox({ seed });
  const { url } = await server.listen({ port, host });
  // The sandbox's fixed, published test credentials: printing them is the point of this command.
  out.text(
    [
      `PARTNER_ORDERS_BASE_URL=${url}`,
      `PARTNER_ORDERS_CLIENT_ID=${server.credentials.clientId}`,
      `PARTNER_ORDERS_CLIENT_SECRET=${server.credentials.clientSecret}`,
      "# Partner Order Service sandbox ready (in memory; Ctrl-C to stop)",
    ].join("\n"),
  );
  return await new Promise<number>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void server.close().then(() => resolve(0));
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
