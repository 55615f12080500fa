import { BASE, FIXTURES, HOUR, iso } from "./fixtures";
import type { ProductRecord, VariantRecord } from "./model";

function variant(v: Partial<VariantRecord> & Pick<VariantRecord, "variantId">): VariantRecord {
  return {
    sku: v.variantId === null ? null : `SKU-${v.variantId}`,
    availableInventory: null,
    inventoryTracked: false,
    minQuantity: null,
    maxQuantity: null,
    weight: v.variantId === null ? null : "0.2500000000",
    updatedOn: iso(BASE - 30 * 24 * HOUR),
    unitPriceCents: 1000,
    ...v,
  };
}

function product(
  p: Partial<ProductRecord> & Pick<ProductRecord, "productId" | "name">,
): ProductRecord {
  return {
    siteId: FIXTURES.sites.main,
    description: null,
    serviceType: "STOCK",
    shippable: true,
    listed: true,
    priceable: true,
    discountPercent: 0,
    variants: [],
    ...p,
  };
}

/** The seeded catalog: the products tests name in FIXTURES, then stock items with random prices. */
export function seedProducts(int: (min: number, max: number) => number): ProductRecord[] {
  const P = FIXTURES.products;
  const V = FIXTURES.variants;
  const pod = (v: Partial<VariantRecord>) => variant({ variantId: null, ...v });
  const list: ProductRecord[] = [
    product({
      productId: P.stockTracked,
      name: "Business Cards (box of 250)",
      description: "Premium matte business cards.",
      variants: [
        variant({
          variantId: V.plenty,
          sku: "BC-STD",
          inventoryTracked: true,
          availableInventory: 500,
          minQuantity: 1,
          maxQuantity: 1000,
          unitPriceCents: 1250,
          updatedOn: iso(BASE - 2 * 24 * HOUR),
        }),
        variant({
          variantId: V.scarce,
          sku: "BC-PREM",
          inventoryTracked: true,
          availableInventory: 3,
          minQuantity: 1,
          maxQuantity: 100,
          unitPriceCents: 1999,
          updatedOn: iso(BASE - 1 * 24 * HOUR),
        }),
      ],
    }),
    product({
      productId: P.stockUntracked,
      name: "Branded Mug",
      variants: [
        variant({ variantId: V.untracked, sku: "MUG-11OZ", minQuantity: 6, unitPriceCents: 899 }),
      ],
    }),
    product({
      productId: P.stockOutOfStock,
      name: "Tote Bag",
      description: "Listed whatever its stock (API document, Product).",
      variants: [
        variant({
          variantId: V.outOfStock,
          sku: "TOTE-1",
          inventoryTracked: true,
          availableInventory: 0,
        }),
      ],
    }),
    product({
      productId: P.pod,
      name: "Custom Poster",
      serviceType: "POD",
      description: "Shared to the site; quoted per order.",
      discountPercent: 15,
      variants: [pod({ minQuantity: 1, maxQuantity: 500, unitPriceCents: 2400 })],
    }),
    product({
      productId: P.podWithMinimum,
      name: "Flyer A5",
      serviceType: "POD",
      variants: [pod({ minQuantity: 50, maxQuantity: 10_000, unitPriceCents: 12 })],
    }),
    product({
      productId: P.unpriceable,
      name: "Vinyl Banner",
      serviceType: "POD",
      priceable: false,
      variants: [pod({})],
    }),
    product({
      productId: P.unlisted,
      name: "Retired Pen",
      listed: false,
      variants: [variant({ variantId: 1501, sku: "PEN-OLD" })],
    }),
    product({
      productId: P.notProvisionedSite,
      siteId: FIXTURES.sites.notProvisioned,
      name: "Outlet Sticker",
      serviceType: "POD",
      variants: [pod({ unitPriceCents: 50 })],
    }),
    product({
      productId: "SLO_5001",
      siteId: FIXTURES.sites.notLive,
      name: "Archive Notebook",
      variants: [variant({ variantId: 5011, unitPriceCents: 700 })],
    }),
    product({
      productId: P.otherPartner,
      siteId: FIXTURES.sites.otherPartner,
      name: "Other Partner Cap",
      variants: [variant({ variantId: 9011, unitPriceCents: 1500 })],
    }),
  ];
  // Filler so the catalog of site 101 runs past one default page (100 entries).
  for (let i = 0; i < 60; i++) {
    const id = 3000 + i;
    const tracked = i % 3 !== 0;
    list.push(
      product({
        productId: `SLO_${id}`,
        name: `Stock Item ${id}`,
        variants: [0, 1].map((k) =>
          variant({
            variantId: id * 10 + k,
            inventoryTracked: tracked,
            availableInventory: tracked ? int(0, 900) : null,
            unitPriceCents: int(100, 9_999),
          }),
        ),
      }),
    );
  }
  return list;
}
