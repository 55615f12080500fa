import { BASE, DEFAULT_CREDENTIALS, FIXTURES, HOUR, iso, OTHER_CREDENTIALS } from "./fixtures";
import type {
  ClientRecord,
  ItemRecord,
  OrderRecord,
  PartnerRecord,
  ProductRecord,
  ShipmentRecord,
  SiteRecord,
} from "./model";
import { formatMoney, fromCents, percentOf } from "./money";
import { seedProducts } from "./seed-products";

export { DEFAULT_CREDENTIALS, FIXTURES, OTHER_CREDENTIALS } from "./fixtures";

export interface SeedData {
  partners: PartnerRecord[];
  clients: ClientRecord[];
  sites: SiteRecord[];
  products: ProductRecord[];
  orders: OrderRecord[];
  nextOrderNumber: number;
  nextItemNumber: number;
}

/** mulberry32: small, fast and the same on every runtime, so a seed always gives the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedData(seed = 1): SeedData {
  const rand = prng(seed);
  const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
  const S = FIXTURES.sites;

  const partners: PartnerRecord[] = [
    {
      partnerId: FIXTURES.partnerId,
      partnerName: "Sandbox Partner",
      capabilities: ["partner-api/orders:read", "partner-api/sites:read"],
      grantedSiteIds: [S.main, S.notProvisioned, S.notLive],
      disabled: false,
    },
    {
      partnerId: FIXTURES.otherPartnerId,
      partnerName: "Other Partner",
      capabilities: ["partner-api/orders:read", "partner-api/sites:read"],
      grantedSiteIds: [S.otherPartner],
      disabled: false,
    },
  ];
  const clients: ClientRecord[] = [
    { ...DEFAULT_CREDENTIALS, partnerId: FIXTURES.partnerId },
    { ...OTHER_CREDENTIALS, partnerId: FIXTURES.otherPartnerId },
  ];
  const sites: SiteRecord[] = [
    {
      siteId: S.main,
      name: "Sandbox Print Shop",
      homeUrl: "https://shop.sandbox.example",
      live: true,
      orderingUser: true,
      markupPercent: 10,
    },
    {
      siteId: S.notProvisioned,
      name: "Sandbox Outlet (no ordering user)",
      homeUrl: "https://outlet.sandbox.example",
      live: true,
      orderingUser: false,
      markupPercent: 0,
    },
    {
      siteId: S.notLive,
      name: "Sandbox Archive (not live)",
      homeUrl: null,
      live: false,
      orderingUser: true,
      markupPercent: 5,
    },
    {
      siteId: S.otherPartner,
      name: "Other Partner Store",
      homeUrl: "https://other.example",
      live: true,
      orderingUser: true,
      markupPercent: 0,
    },
  ];

  const products = seedProducts(int);
  const { orders, nextOrderNumber, nextItemNumber } = seedOrders(rand, int);
  return { partners, clients, sites, products, orders, nextOrderNumber, nextItemNumber };
}

const STATUSES = ["Submitted", "In Production", "Shipped", "Delivered", "Cancelled", "On Hold"];
const SERVICES = ["UPS Ground", "FedEx 2Day", "USPS Priority"];

function seedOrders(rand: () => number, int: (min: number, max: number) => number) {
  const S = FIXTURES.sites;
  const O = FIXTURES.orders;
  const orders: OrderRecord[] = [];
  let itemNumber = 500_001;
  let orderNumber = 100_001;
  const count = 320;
  let placed = BASE;
  for (let i = 0; i < count; i++, orderNumber++) {
    // Every 50th pair shares a placedOn, so the list's (placedOn, orderNumber) tie-break matters.
    if (i % 50 !== 1) placed += int(1, 6) * HOUR + int(0, 59) * 60_000;
    const special = orderNumber < O.otherPartner;
    const siteId =
      orderNumber === O.otherPartner
        ? S.otherPartner
        : special
          ? S.main
          : ([S.notProvisioned, S.notLive, S.otherPartner][[7, 13, 3].indexOf(i % 20)] ?? S.main);
    const status = special ? "In Production" : (STATUSES[int(0, STATUSES.length - 1)] as string);
    const shipped = status === "Shipped" || status === "Delivered";
    const order: OrderRecord = {
      orderNumber,
      status,
      placedOn: iso(placed),
      updatedOn: iso(placed + int(1, 48) * HOUR),
      shippedOn: shipped ? iso(placed + 72 * HOUR) : null,
      purchaseOrder: i % 4 === 0 ? null : `PO-${10_000 + i}`,
      projectName: `Project ${i + 1}`,
      projectId: 70_000 + i,
      siteId,
      totals: { item: null, shipping: null, tax: null, order: null },
      closed: status === "Delivered" || status === "Cancelled",
      items: [],
      shipments: [],
    };
    const itemCount = orderNumber === O.manyItems ? 130 : int(1, 4);
    for (let k = 0; k < itemCount; k++) {
      const priced = !(k % 9 === 4);
      const list = fromCents(int(500, 50_000));
      const configured = k % 3 === 1;
      order.items.push({
        orderNumber,
        siteId,
        itemNumber: itemNumber++,
        sku: configured ? null : `SKU-${int(1000, 9999)}`,
        productName: configured ? "Configured Print Job" : "Stock Item",
        productCode: `${int(10_000, 99_999)}`,
        jobName: configured ? `Job ${k + 1}` : null,
        externalId: k % 2 === 0 ? `ext-${orderNumber}-${k}` : null,
        quantity: int(1, 500),
        lineListTotal: priced ? formatMoney(list) : null,
        lineTotal: priced ? formatMoney(list - percentOf(list, 5)) : null,
        shipped,
        shippedOn: order.shippedOn,
        cancelled: status === "Cancelled" || k % 11 === 5,
        estimatedShipBy: iso(placed + 48 * HOUR),
        shipBy: iso(placed + 72 * HOUR),
        turnaroundBusinessDays: k % 2 ? null : int(1, 10),
        // Rework and proof children are internal: never listed (API document, items rules).
        visible: orderNumber !== O.noVisibleItems && k % 13 !== 12,
      });
    }
    // A line whose site disagrees with its order's site is shown to nobody (items rules).
    if (i % 25 === 10) (order.items[0] as ItemRecord).siteId = S.otherPartner + 1;
    setTotals(order, i, int);
    order.shipments = seedShipments(order, rand, int);
    orders.push(order);
  }
  return { orders, nextOrderNumber: orderNumber, nextItemNumber: itemNumber };
}

function setTotals(order: OrderRecord, i: number, int: (min: number, max: number) => number) {
  if (i % 17 === 16) return; // not computed: null, not zero
  let item = 0n;
  for (const line of order.items) {
    if (line.lineTotal !== null) item += BigInt(line.lineTotal.replace(".", ""));
  }
  const shipping = fromCents(int(0, 2_500));
  // 7.25 % to the 10th digit: totals keep digits a binary float would lose.
  const tax = i % 11 === 3 ? null : percentOf(item + shipping, 7.25);
  order.totals = {
    item: formatMoney(item),
    shipping: formatMoney(shipping),
    tax: tax === null ? null : formatMoney(tax),
    order: formatMoney(item + shipping + (tax ?? 0n)),
  };
}

function seedShipments(
  order: OrderRecord,
  rand: () => number,
  int: (min: number, max: number) => number,
): ShipmentRecord[] {
  const O = FIXTURES.orders;
  const placed = Date.parse(order.placedOn);
  const base = (n: number, shipped: boolean): ShipmentRecord => ({
    shipmentNumber: n,
    shippingService: shipped || rand() < 0.5 ? (SERVICES[n % SERVICES.length] as string) : null,
    manualTrackingNumber: null,
    shippedOn: shipped ? iso(placed + 72 * HOUR) : null,
    deliveredOn: shipped && order.status === "Delivered" ? iso(placed + 120 * HOUR) : null,
    estimatedShipBy: iso(placed + 48 * HOUR),
    shipBy: iso(placed + 72 * HOUR),
    deliverBy: rand() < 0.3 ? null : iso(placed + 144 * HOUR),
    packages: [],
  });
  const carrier = (n: number) => `1Z${String(order.orderNumber)}${String(n).padStart(4, "0")}`;
  const withPackages = (s: ShipmentRecord, count: number) => {
    for (let p = 1; p <= count; p++)
      s.packages.push({ sequence: p, trackingNumber: carrier(s.shipmentNumber * 100 + p) });
    return s;
  };

  switch (order.orderNumber) {
    case O.tracking: {
      // 1: carrier numbers, one repeated, one package without a number: distinct carrier numbers win.
      const one = base(1, true);
      one.manualTrackingNumber = "MANUAL-IGNORED";
      one.packages = [
        { sequence: 1, trackingNumber: "1ZCARRIER0001" },
        { sequence: 2, trackingNumber: "1ZCARRIER0002" },
        { sequence: 2, trackingNumber: "1ZCARRIER0001" },
        { sequence: 5, trackingNumber: null },
      ];
      // 2: packages without numbers: the manual shipment-level number.
      const two = base(2, true);
      two.manualTrackingNumber = "MANUAL-0002";
      two.packages = [{ sequence: 1, trackingNumber: null }];
      // 3: not shipped yet: no tracking, shippedOn null (keep polling).
      const three = base(3, false);
      return [one, two, three];
    }
    case O.manyShipments:
      return Array.from({ length: 60 }, (_, k) => withPackages(base(k + 1, true), 1));
    case O.manyPackages:
      return [1, 2, 3].map((n) => withPackages(base(n, true), 40));
    case O.noShipments:
      return [];
  }
  if (order.status === "Shipped" || order.status === "Delivered") {
    const count = int(1, 2);
    return Array.from({ length: count }, (_, k) => {
      const s = base(k + 1, true);
      if (rand() < 0.25) s.manualTrackingNumber = `MAN-${order.orderNumber}-${k + 1}`;
      else withPackages(s, int(1, 3));
      return s;
    });
  }
  if (order.status === "In Production") return [base(1, false)];
  return [];
}
