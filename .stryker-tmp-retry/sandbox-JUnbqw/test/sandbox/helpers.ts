// @ts-nocheck
import type { Sandbox, SandboxCredentials } from "partner-orders/testing";

/** Mints a token through the sandbox's own token endpoint, as a client would. */
export async function tokenFor(
  sandbox: Sandbox,
  scopes: string[] | null = ["orders:read", "sites:read"],
  credentials: SandboxCredentials = sandbox.credentials,
): Promise<string> {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
  });
  if (scopes) form.set("scope", scopes.map((s) => `partner-api/${s}`).join(" "));
  const res = await sandbox.fetch("/oauth2/token", { method: "POST", body: form });
  if (res.status !== 200) throw new Error(`token request failed with ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A tiny raw client: `get(path)` and `post(path, body)` with the bearer token, answers parsed. */
export function api(sandbox: Sandbox, token: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await sandbox.fetch(path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined
        ? {}
        : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: test code reads whatever the sandbox answered
    const json: any = text ? JSON.parse(text) : undefined;
    return { status: res.status, headers: res.headers, json };
  };
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body: unknown) => call("POST", path, body),
  };
}

export const shipTo = {
  name: "Ada Lovelace",
  address1: "1 Analytical Way",
  city: "London",
  state: "LDN",
  postalCode: "N1 9GU",
  country: "GB",
};

/** A valid order for site 101: one STOCK line and one POD line. */
export function validOrder(partnerOrderId = `po-${Math.random().toString(36).slice(2)}`) {
  return {
    siteId: 101,
    partnerOrderId,
    shipTo: { ...shipTo, email: "ada@example.com" },
    lines: [
      { productId: "SLO_1001", variantId: 11, partnerLineId: "line-1", quantity: 2 },
      {
        productId: "SLS_2001",
        partnerLineId: "line-2",
        quantity: 3,
        templateVariables: { name: "Ada" },
      },
    ],
  };
}
