// @ts-nocheck
import type { HttpHandler } from "msw";
import type { Transport } from "./auth";
import type { HandleResult } from "./handler";

/**
 * MSW handlers answering every request under `baseUrl` from the sandbox. msw is an optional peer
 * dependency, so it is loaded here, on demand, and never by the testing entry itself.
 */
export async function createMswHandlers(
  handle: (request: Request, transport: Transport) => Promise<HandleResult>,
  baseUrl: string,
): Promise<HttpHandler[]> {
  const { http, HttpResponse } = await import("msw");
  const base = baseUrl.replace(/\/+$/, "");
  return [
    http.all(`${base}/*`, async ({ request }) => {
      const result = await handle(request, { kind: "bearer" });
      // HttpResponse.error() makes fetch reject with a TypeError, as a dropped connection does.
      return result.drop ? HttpResponse.error() : result.response;
    }),
  ];
}
