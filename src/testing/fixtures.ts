/** The sandbox's fixed data: credentials, the fixtures tests name, and the seed's time origin. */

/** The default partner's fixed credentials (documented in the README, printed by the CLI). */
export const DEFAULT_CREDENTIALS = {
  /** The default partner's client id. */
  clientId: "sandbox-client",
  /** Its client secret: a fixed sandbox value, never a real one. */
  clientSecret: "sandbox-secret",
} as const;

/** A second partner, granted only site 201: everything of the default partner is outside its grant. */
export const OTHER_CREDENTIALS = {
  clientId: "sandbox-other-client",
  clientSecret: "sandbox-other-secret",
} as const;

/**
 * Named handles on the seeded data worth testing against, so tests never hard-code magic numbers.
 * The values are the same for every seed; the seed varies the rest of the data.
 */
export const FIXTURES = {
  /** The default partner, the one `sandbox.credentials` belongs to. */
  partnerId: "ptn_sandbox",
  /** The second partner, the one `sandbox.otherCredentials` belongs to. */
  otherPartnerId: "ptn_other",
  /** Site ids. */
  sites: {
    /** Granted, live, with an ordering user: where orders go. */
    main: 101,
    /** Granted, but no ordering user: POST /v1/orders answers 409 `ordering_not_provisioned`. */
    notProvisioned: 102,
    /** Granted but not live: still listed by GET /v1/sites. */
    notLive: 103,
    /** The other partner's site, outside the default grant. */
    otherPartner: 201,
  },
  /** Order numbers. */
  orders: {
    /** Shipments covering every branch of the tracking precedence rule. */
    tracking: 100_001,
    /** 60 shipments, to page through (default page 25, cap 50). */
    manyShipments: 100_002,
    /** 3 shipments of 40 packages each, to hit the packages ceiling. */
    manyPackages: 100_003,
    /** 120 visible items (plus hidden ones), cancelled lines, null skus and null totals. */
    manyItems: 100_004,
    /** Exists, has no shipments: 200 with an empty array. */
    noShipments: 100_005,
    /** Exists, every line hidden: 200 with an empty array. */
    noVisibleItems: 100_006,
    /** On site 201, outside the default partner's grant. */
    otherPartner: 100_004 + 3,
  },
  /** Product ids. */
  products: {
    /** STOCK with tracked inventory, two variants (`variants.plenty`, `variants.scarce`). */
    stockTracked: "SLO_1001",
    /** STOCK with untracked inventory: `availableInventory` is null, not 0. */
    stockUntracked: "SLO_1002",
    /** STOCK, tracked, none on hand: still listed. */
    stockOutOfStock: "SLO_1003",
    /** Print on demand, shared to the site (`SLS_`): no variant id, quoted per order. */
    pod: "SLS_2001",
    /** Print on demand with a minimum quantity of 50. */
    podWithMinimum: "SLO_2002",
    /** In the catalog, but its quote answers 404 `quote_product_not_found`. */
    unpriceable: "SLO_2003",
    /** Exists but is not listed: an order for it is rejected. */
    unlisted: "SLO_1500",
    /** On the site with no ordering user (`sites.notProvisioned`). */
    notProvisionedSite: "SLO_4001",
    /** On the other partner's site, outside the default grant. */
    otherPartner: "SLO_9001",
  },
  /** Variant ids. */
  variants: {
    /** Of `SLO_1001`: 500 on hand. */
    plenty: 11,
    /** Of `SLO_1001`: only 3 on hand. */
    scarce: 12,
    /** Of `SLO_1002`: inventory not tracked. */
    untracked: 21,
    /** Of `SLO_1003`: tracked, 0 on hand. */
    outOfStock: 31,
  },
  /** Orders on site 101 (more than five default pages of 50). */
  mainSiteOrderCount: 272,
} as const;

/** The seed's time origin: every seeded timestamp is an offset from it. */
export const BASE = Date.parse("2024-01-01T00:00:00.000Z");
export const HOUR = 3_600_000;
export const iso = (ms: number) => new Date(ms).toISOString();
