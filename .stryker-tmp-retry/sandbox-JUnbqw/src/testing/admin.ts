// @ts-nocheck
import type { OrderRecord, PackageRecord, ShipmentRecord } from "./model";
import type { SandboxState } from "./state";

/**
 * Staff-side changes the API itself cannot make. Each one that the service announces emits its
 * webhook event (API document, "Event types"); the others change data silently, as staff tools do.
 */
export interface ShipOptions {
  /** A hand-entered shipment-level number (used when no package carries one). */
  trackingNumber?: string;
  /** Carrier numbers, one package each. */
  packages?: Array<string | null>;
  /**
   * The carrier service name.
   * @default the shipment's current one, else "UPS Ground"
   */
  shippingService?: string;
}

export function createAdmin(state: SandboxState) {
  const order = (orderNumber: number): OrderRecord => {
    const found = state.orders.get(orderNumber);
    if (!found) throw new Error(`No order ${orderNumber} in the sandbox`);
    return found;
  };
  const shipment = (o: OrderRecord, shipmentNumber: number): ShipmentRecord => {
    const found = o.shipments.find((s) => s.shipmentNumber === shipmentNumber);
    if (!found) throw new Error(`No shipment ${shipmentNumber} on order ${o.orderNumber}`);
    return found;
  };
  const now = () => new Date(state.clock.now()).toISOString();
  const event = (type: string, o: OrderRecord, shipmentNumber?: number) =>
    state.emit({
      type,
      siteId: o.siteId,
      orderNumber: o.orderNumber,
      ...(o.partnerOrderId !== undefined ? { partnerOrderId: o.partnerOrderId } : {}),
      ...(o.submittedBy !== undefined ? { submittedBy: o.submittedBy } : {}),
      ...(shipmentNumber !== undefined ? { shipmentNumber } : {}),
    });

  return {
    /** Changes an order's status and emits `order.status_changed`. `updatedOn` moves too. */
    setOrderStatus(orderNumber: number, status: string, options: { closed?: boolean } = {}): void {
      const o = order(orderNumber);
      o.status = status;
      o.closed = options.closed ?? (status === "Delivered" || status === "Cancelled");
      o.updatedOn = now();
      event("order.status_changed", o);
    },

    /**
     * Adds a not-yet-shipped shipment (no event); returns its number.
     *
     * @inlineType ShipmentRecord
     * @inlineType PackageRecord
     */
    addShipment(
      orderNumber: number,
      fields: Partial<Omit<ShipmentRecord, "shipmentNumber">> = {},
    ): number {
      const o = order(orderNumber);
      const shipmentNumber = Math.max(0, ...o.shipments.map((s) => s.shipmentNumber)) + 1;
      o.shipments.push({
        ...blankShipment(shipmentNumber),
        estimatedShipBy: now(),
        shipBy: now(),
        ...fields,
      });
      return shipmentNumber;
    },

    /**
     * Ships a shipment (created when missing) and emits `shipment.shipped`. A shipped shipment always
     * has tracking (API document, Shipment invariant), so a carrier number is made up when none is given.
     * Deliberately, `updatedOn` does not move (API document, Order.updatedOn).
     */
    shipShipment(orderNumber: number, shipmentNumber: number, options: ShipOptions = {}): void {
      const o = order(orderNumber);
      if (!o.shipments.some((s) => s.shipmentNumber === shipmentNumber)) {
        o.shipments.push({
          ...blankShipment(shipmentNumber),
          estimatedShipBy: now(),
          shipBy: now(),
        });
        o.shipments.sort((a, b) => a.shipmentNumber - b.shipmentNumber);
      }
      const s = shipment(o, shipmentNumber);
      const numbers = options.packages ?? [];
      const start = s.packages.length;
      s.packages.push(
        ...numbers.map(
          (trackingNumber, i): PackageRecord => ({ sequence: start + i + 1, trackingNumber }),
        ),
      );
      if (options.trackingNumber !== undefined) s.manualTrackingNumber = options.trackingNumber;
      if (!s.manualTrackingNumber && !s.packages.some((p) => p.trackingNumber)) {
        s.packages.push({
          sequence: s.packages.length + 1,
          trackingNumber: `1ZSBX${orderNumber}${shipmentNumber}`,
        });
      }
      s.shippingService = options.shippingService ?? s.shippingService ?? "UPS Ground";
      s.shippedOn = now();
      o.shippedOn ??= s.shippedOn;
      event("shipment.shipped", o, shipmentNumber);
    },

    /** Cancels a shipment: it leaves the shipments list; emits `shipment.cancelled`. */
    cancelShipment(orderNumber: number, shipmentNumber: number): void {
      const o = order(orderNumber);
      const s = shipment(o, shipmentNumber);
      o.shipments.splice(o.shipments.indexOf(s), 1);
      event("shipment.cancelled", o, shipmentNumber);
    },

    /** Cancels a line: it stays listed with `cancelled: true`; emits `order_line.cancelled`. */
    cancelLine(orderNumber: number, itemNumber: number): void {
      const o = order(orderNumber);
      const item = o.items.find((i) => i.itemNumber === itemNumber);
      if (!item) throw new Error(`No item ${itemNumber} on order ${orderNumber}`);
      item.cancelled = true;
      event("order_line.cancelled", o);
    },

    /**
     * Overwrites shipment fields with no event (e.g. to build the "shipped without tracking" data fault).
     *
     * @inlineType ShipmentRecord
     * @inlineType PackageRecord
     */
    updateShipment(
      orderNumber: number,
      shipmentNumber: number,
      patch: Partial<Omit<ShipmentRecord, "shipmentNumber">>,
    ): void {
      Object.assign(shipment(order(orderNumber), shipmentNumber), patch);
    },

    /**
     * Places an order as the platform would (not through POST /v1/orders, so no event and no
     * partnerOrderId): open, with `lines` priced lines and no shipment yet. Returns its number.
     */
    placeOrder(options: { siteId?: number; lines?: number; status?: string } = {}): number {
      const orderNumber = state.next.orderNumber++;
      const siteId = options.siteId ?? 101;
      const placedOn = now();
      const items = Array.from({ length: Math.max(1, options.lines ?? 1) }, (_, k) => ({
        orderNumber,
        siteId,
        itemNumber: state.next.itemNumber++,
        sku: `SKU-${1000 + k}`,
        productName: "Stock Item",
        productCode: "10001",
        jobName: null,
        externalId: null,
        quantity: 10 * (k + 1),
        lineListTotal: `${12 * (k + 1)}.5000000000`,
        lineTotal: `${12 * (k + 1)}.0000000000`,
        shipped: false,
        shippedOn: null,
        cancelled: false,
        estimatedShipBy: placedOn,
        shipBy: placedOn,
        turnaroundBusinessDays: 3,
        visible: true,
      }));
      state.orders.set(orderNumber, {
        orderNumber,
        status: options.status ?? "Submitted",
        placedOn,
        updatedOn: placedOn,
        shippedOn: null,
        purchaseOrder: null,
        projectName: `Project ${orderNumber}`,
        projectId: state.next.projectId++,
        siteId,
        totals: { item: null, shipping: null, tax: null, order: null },
        closed: false,
        items,
        shipments: [],
      });
      return orderNumber;
    },

    /** Records the carrier's delivery of a shipped shipment (no event, as the service sends none). */
    deliverShipment(orderNumber: number, shipmentNumber: number): void {
      const s = shipment(order(orderNumber), shipmentNumber);
      if (!s.shippedOn)
        throw new Error(`Shipment ${shipmentNumber} of order ${orderNumber} has not shipped`);
      s.deliveredOn = now();
    },

    /** Changes a line's quantity silently: no event, and `updatedOn` does not move (API document). */
    setItemQuantity(orderNumber: number, itemNumber: number, quantity: number): void {
      const item = order(orderNumber).items.find((i) => i.itemNumber === itemNumber);
      if (!item) throw new Error(`No item ${itemNumber} on order ${orderNumber}`);
      item.quantity = quantity;
    },

    /** Hides an order (or shows it again): while hidden it answers 404 and leaves the list. */
    hideOrder(orderNumber: number, hidden = true): void {
      order(orderNumber).hidden = hidden;
    },

    /** Sets stock on hand of a tracked variant (POD products have none). */
    setInventory(productId: string, variantId: number, availableInventory: number): void {
      const v = state.products
        .find((p) => p.productId === productId)
        ?.variants.find((x) => x.variantId === variantId);
      if (!v) throw new Error(`No variant ${variantId} of ${productId} in the sandbox`);
      v.inventoryTracked = true;
      v.availableInventory = availableInventory;
    },

    /** Adds a second live client to a partner (rotation: same grants, API document "Rotation"). */
    addClient(partnerId: string, clientId: string, clientSecret: string): void {
      if (!state.partners.has(partnerId)) throw new Error(`No partner ${partnerId} in the sandbox`);
      state.clients.set(clientId, { clientId, clientSecret, partnerId });
    },

    /** Deletes a client: its tokens stop working on their next use. */
    revokeClient(clientId: string): void {
      state.clients.delete(clientId);
    },

    /** Replaces a partner's capabilities, e.g. `["partner-api/sites:read"]`. */
    setCapabilities(partnerId: string, capabilities: string[]): void {
      partnerRecord(state, partnerId).capabilities = [...capabilities];
    },

    /** Replaces a partner's granted sites; a partner with none is refused at authentication. */
    setGrantedSites(partnerId: string, siteIds: number[]): void {
      partnerRecord(state, partnerId).grantedSiteIds = [...siteIds];
    },

    /** Disables (or re-enables) a partner: every credential of it then gets 401 `invalid_token`. */
    setPartnerDisabled(partnerId: string, disabled = true): void {
      partnerRecord(state, partnerId).disabled = disabled;
    },
  };
}

/**
 * Staff-side changes to the sandbox's data, as the service's staff or the platform would make
 * them: `sandbox.admin`. Changes that the API document says emit an event send a webhook.
 *
 * @interface
 */
export type SandboxAdmin = ReturnType<typeof createAdmin>;

function partnerRecord(state: SandboxState, partnerId: string) {
  const partner = state.partners.get(partnerId);
  if (!partner) throw new Error(`No partner ${partnerId} in the sandbox`);
  return partner;
}

function blankShipment(shipmentNumber: number): ShipmentRecord {
  return {
    shipmentNumber,
    shippingService: null,
    manualTrackingNumber: null,
    shippedOn: null,
    deliveredOn: null,
    estimatedShipBy: null,
    shipBy: null,
    deliverBy: null,
    packages: [],
  };
}
