// @ts-nocheck
import type { Principal, RouteContext } from "./router";
import type { SandboxState } from "./state";

/**
 * Authentication as the gateway does it (API document, "Authentication"): every failure is the same
 * 401 invalid_token, whatever the cause, so this module only ever answers "who" or "nobody".
 */

export const SCOPE_PREFIX = "partner-api/";

/** What the listener knows about the connection. */
export type Transport =
  | { kind: "bearer" }
  | {
      kind: "mtls";
      /** The verified client certificate (the handshake already checked its chain). */
      peer: { subject: string; serialNumber: string } | undefined;
    };

export function authenticate(
  state: SandboxState,
  request: Request,
  transport: Transport,
): Principal | undefined {
  if (transport.kind === "mtls") {
    // On the mTLS host the certificate is the credential; an Authorization header means nothing.
    const peer = transport.peer;
    if (!peer) return undefined;
    const binding = state.certificates.find(
      (c) => c.subject === peer.subject && c.serialNumber === peer.serialNumber,
    );
    const partner = binding && state.partners.get(binding.partnerId);
    if (!partner || partner.disabled || partner.grantedSiteIds.length === 0) return undefined;
    // Effective scopes are the record's capabilities directly (API document, Effective scopes); an
    // empty effective scope set is an authentication failure for every method (Authentication failure).
    if (partner.capabilities.length === 0) return undefined;
    return { partner, authMethod: "MTLS", scopes: [...partner.capabilities] };
  }

  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  const token = match && state.tokens.get(match[1] as string);
  if (!token || state.clock.now() >= token.expiresAt) return undefined;
  // Resolved again on every request: a revoked client's tokens stop working at once (Rotation).
  const client = state.clients.get(token.clientId);
  const partner = client && state.partners.get(client.partnerId);
  if (!partner || partner.disabled || partner.grantedSiteIds.length === 0) return undefined;
  // The partner record is the ceiling, also for tokens minted before a capability was removed.
  const scopes = token.scopes.filter((s) => partner.capabilities.includes(s));
  if (scopes.length === 0) return undefined;
  return { partner, authMethod: "COGNITO_M2M", scopes };
}

function oauthError(status: number, error: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}

/** The client id and secret from HTTP Basic (RFC 6749 2.3.1: each form-urlencoded) or the form body. */
function clientCredentials(request: Request, form: URLSearchParams) {
  const basic = /^basic\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return { basic: true };
    const formDecode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, " "));
      } catch {
        return s;
      }
    };
    return {
      basic: true,
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    };
  }
  return {
    basic: false,
    clientId: form.get("client_id") ?? undefined,
    clientSecret: form.get("client_secret") ?? undefined,
  };
}

/**
 * POST /oauth2/token: OAuth 2.0 client credentials (RFC 6749 4.4), answered with RFC 6749 error
 * bodies rather than problem documents, as an OAuth server does.
 */
export async function tokenEndpoint(ctx: RouteContext): Promise<Response> {
  const { state, request } = ctx;
  state.counters.tokenRequests++;
  const form = new URLSearchParams(await request.text());
  const creds = clientCredentials(request, form);
  const client = creds.clientId ? state.clients.get(creds.clientId) : undefined;
  if (!client || client.clientSecret !== creds.clientSecret) {
    return oauthError(
      401,
      "invalid_client",
      creds.basic ? { "www-authenticate": 'Basic realm="oauth2"' } : {},
    );
  }
  const grantType = form.get("grant_type");
  if (!grantType) return oauthError(400, "invalid_request");
  if (grantType !== "client_credentials") return oauthError(400, "unsupported_grant_type");

  const partner = state.partners.get(client.partnerId);
  const capabilities = partner?.capabilities ?? [];
  const requested = form.get("scope");
  // Requesting an unheld scope does not fail: it is just absent (API document, Effective scopes).
  // No scope parameter asks for everything the client may hold, as Cognito does.
  const scopes =
    requested === null
      ? [...capabilities]
      : [...new Set(requested.split(/\s+/).filter((s) => capabilities.includes(s)))];
  const ttl = state.config.tokenTtlSeconds;
  const accessToken = `sbx_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url")}`;
  state.tokens.set(accessToken, {
    clientId: client.clientId,
    scopes,
    expiresAt: state.clock.now() + ttl * 1000,
  });
  state.counters.tokensIssued++;
  return new Response(
    JSON.stringify({
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: ttl,
      scope: scopes.join(" "),
    }),
    { status: 200, headers: { "content-type": "application/json", "cache-control": "no-store" } },
  );
}
