// @ts-nocheck
import { json } from "../problem";
import { renderSite } from "../render";
import type { Principal, RouteDefinition } from "../router";

const sites: RouteDefinition = {
  method: "GET",
  path: "/v1/sites",
  handle(ctx) {
    // The complete grant in one response, not-live sites included (API document, Site).
    const granted = (ctx.principal as Principal).partner.grantedSiteIds;
    const list = granted.flatMap((id) => {
      const site = ctx.state.sites.get(id);
      return site ? [renderSite(site)] : [];
    });
    return json(200, { sites: list }, ctx.requestId);
  },
};

const me: RouteDefinition = {
  method: "GET",
  path: "/v1/me",
  handle(ctx) {
    const { partner, authMethod, scopes } = ctx.principal as Principal;
    return json(
      200,
      {
        partnerId: partner.partnerId,
        partnerName: partner.partnerName,
        grantedSiteIds: [...partner.grantedSiteIds],
        authMethod,
        // Principal.scopes is "empty for mutual-TLS credentials" even though mTLS is authorized by
        // the record's capabilities (API document, Principal and Effective scopes).
        scopes: authMethod === "MTLS" ? [] : scopes,
      },
      ctx.requestId,
    );
  },
};

/** Liveness without a credential on the bearer host; on the mTLS host the handshake already ran. */
const ping: RouteDefinition = {
  method: "GET",
  path: "/v1/ping",
  auth: "none",
  handle: (ctx) => json(200, { status: "ok" }, ctx.requestId),
};

export const accountRoutes: RouteDefinition[] = [sites, me, ping];
