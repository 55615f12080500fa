// @ts-nocheck
import { afterEach, beforeEach } from "vitest";

const envNames = [
  "PARTNER_ORDERS_BASE_URL",
  "PARTNER_ORDERS_CLIENT_ID",
  "PARTNER_ORDERS_CLIENT_SECRET",
] as const;

/** Clears the client's environment variables before each test of the file, and restores them after. */
export function isolateClientEnv(): void {
  let saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    saved = Object.fromEntries(envNames.map((name) => [name, process.env[name]]));
    for (const name of envNames) delete process.env[name];
  });
  afterEach(() => {
    for (const name of envNames) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
}
