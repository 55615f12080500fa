import { existsSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { mirrorStatusPage, sqliteStore } from "partner-orders/sync";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATUS } from "../../../src/sync/context";
import { readRequestHistory } from "../../../src/sync/request-log";
import type { MirrorStore } from "../../../src/sync/types";
import { type Synced, serve, syncedMirror } from "./support.js";

/**
 * The status page in a real browser (Debian's Chromium, headless), served by the Node adapter from
 * a mirror on a real SQLite file synced from the sandbox. Nothing here is skipped: without
 * Chromium the suite fails and says what to install.
 */
const CHROMIUM = "/usr/bin/chromium";
const HOSTILE = `<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">`;

let s: Synced;
let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: the status page tests need it (Debian: apt-get install chromium; CI installs it).`,
    );
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  s = await syncedMirror();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.cleanup();
});

/** A new page that records script errors and CSP violations. */
async function open(url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  await page.goto(url);
  return { page, problems };
}

/** Moves the mirror's clock while `work` runs, so the page's open change stream looks again. */
async function ticking<T>(work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => s.sandbox.clock.advance(1_000), 25);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

/** Reads the mirror's SQLite file with a store of its own. */
async function fromStore<T>(read: (store: MirrorStore) => Promise<T>): Promise<T> {
  const store = sqliteStore(s.path);
  await store.open();
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}
/** Requests the mirror recorded in the current hour. */
const storedRequests = () =>
  fromStore(async (store) => (await readRequestHistory(store))?.hours.at(-1)?.[1] ?? 0);
/** The newest change's id. */
const lastChangeId = () => fromStore((store) => store.lastChangeId());

describe("the status page in Chromium", () => {
  it("renders the mirror's figures, with the CSP header, and its script runs under it", async () => {
    const handler = mirrorStatusPage(s.mirror);
    const server = await serve(handler.node);
    const { page, problems } = await open(server.url);
    try {
      const status = await s.mirror.status();
      const answer = await page.request.get(server.url);
      expect(answer.headers()["content-security-policy"]).toContain("script-src 'self'");
      expect(await text(page, '[data-figure="openOrders"]')).toBe(String(status.openOrders));
      expect(await text(page, '[data-figure="dueNow"]')).toBe(String(status.dueNow));
      expect(await text(page, '[data-figure="lastSweep"]')).toBe(
        `${status.lastSweep?.at} finished`,
      );
      expect(await text(page, '[data-figure="requestsLastHour"]')).toBe(String(s.report.requests));
      expect(await text(page, '[data-figure="naivePerHour"]')).toMatch(/^\d+$/);
      expect(await page.locator("svg rect.bar").count()).toBe(1);
      // app.js ran (under script-src 'self'): the change stream connected.
      await page.waitForFunction(() =>
        document.querySelector("#live-state")?.textContent?.startsWith("Live"),
      );
      expect(problems, problems.join("\n")).toEqual([]);
    } finally {
      await page.close();
      handler.close();
      await server.close();
    }
  });

  it("shows a change live as it commits, and refreshes the figures", async () => {
    const handler = mirrorStatusPage(s.mirror);
    const server = await serve(handler.node);
    const { page, problems } = await open(server.url);
    try {
      await page.waitForFunction(() =>
        document.querySelector("#live-state")?.textContent?.startsWith("Live"),
      );
      const before = Number(await text(page, '[data-figure="openOrders"]'));
      const order = s.sandbox.admin.placeOrder({ lines: 2 });
      await s.mirror.refresh(order);
      await ticking(() =>
        page.waitForFunction(
          (n) =>
            [...document.querySelectorAll("#changes li")].some((li) =>
              li.textContent?.includes(`order ${n},`),
            ),
          order,
        ),
      );
      expect(await text(page, "#changes li strong")).toMatch(/^(order|item)\.added$/);
      // The change made the page fetch status.json again: one more open order.
      await page.waitForFunction(
        (n) => document.querySelector('[data-figure="openOrders"]')?.textContent === String(n),
        before + 1,
      );
      // The README's picture: STATUS_PAGE_SCREENSHOT=media/status-page.png npx vitest run <this file>
      const shot = process.env.STATUS_PAGE_SCREENSHOT;
      if (shot) await page.screenshot({ path: shot, fullPage: true });
      expect(problems, problems.join("\n")).toEqual([]);
    } finally {
      await page.close();
      handler.close();
      await server.close();
    }
  });

  it("redraws the request figures and the chart without a reload: when a change commits, and on the stream's status tick", async () => {
    const handler = mirrorStatusPage(s.mirror);
    const server = await serve(handler.node);
    const { page, problems } = await open(server.url);
    const requests = async () => Number(await text(page, '[data-figure="requestsLastHour"]'));
    const barTitle = () => text(page, "#plot rect.bar title");
    /** Waits until this hour's figure and bar both say `n` requests. */
    const showing = (n: number) =>
      page.waitForFunction(
        (n) =>
          document.querySelector('[data-figure="requestsLastHour"]')?.textContent === String(n) &&
          (document.querySelector("#plot rect.bar:last-of-type title")?.textContent ?? "").endsWith(
            `: ${n} requests`,
          ),
        n,
      );
    try {
      await page.waitForFunction(() =>
        document.querySelector("#live-state")?.textContent?.startsWith("Live"),
      );
      // Marks this document: a reload would lose it.
      await page.evaluate(() => {
        (window as { __sameDocument?: boolean }).__sameDocument = true;
      });
      const before = await requests();
      expect(await barTitle()).toMatch(new RegExp(`: ${before} requests$`));
      // A new order: a pass finds it and commits its change, and the pass's requests are recorded.
      const newest = await lastChangeId();
      s.sandbox.admin.placeOrder({ lines: 1 });
      await s.mirror.sync();
      expect(await lastChangeId()).toBeGreaterThan(newest);
      const afterChange = await storedRequests();
      expect(afterChange).toBeGreaterThan(before);
      await ticking(() => showing(afterChange));
      // A pass that finds nothing new commits no change, so no change event: the stream's status
      // tick brings its requests all the same.
      const committed = await lastChangeId();
      await s.mirror.sync();
      expect(await lastChangeId()).toBe(committed);
      const afterTick = await storedRequests();
      expect(afterTick).toBeGreaterThan(afterChange);
      await ticking(() => showing(afterTick));
      expect(await page.locator("#plot rect.bar").count()).toBe(1);
      expect(await page.locator("#plot line.naive").count()).toBe(1);
      expect(
        await page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument),
      ).toBe(true);
      expect(problems, problems.join("\n")).toEqual([]);
    } finally {
      await page.close();
      handler.close();
      await server.close();
    }
  });

  it("shows hostile text from the service as text: no script runs, no element is made", async () => {
    // A consumer name and an error message are rendered by the server and again by the page's
    // script from status.json; an order's status by the script from the change stream and search.
    await s.mirror.resetConsumer(HOSTILE, "now");
    const store = sqliteStore(s.path);
    await store.open();
    const at = new Date(s.sandbox.clock.now()).toISOString();
    await store.setCheckpoint(
      STATUS.lastError,
      JSON.stringify({ at, code: "x", message: HOSTILE }),
    );
    await store.close();
    const handler = mirrorStatusPage(s.mirror);
    const server = await serve(handler.node);
    const { page } = await open(server.url);
    try {
      expect(await text(page, '[data-table="consumers"] td')).toBe(HOSTILE);
      await page.waitForFunction(() =>
        document.querySelector("#live-state")?.textContent?.startsWith("Live"),
      );
      const order = s.sandbox.admin.placeOrder({ status: HOSTILE });
      await s.mirror.refresh(order);
      await ticking(() =>
        page.waitForFunction(
          (n) =>
            [...document.querySelectorAll("#changes li")].some((li) =>
              li.textContent?.includes(`order ${n},`),
            ),
          order,
        ),
      );
      const added = page.locator("#changes li").filter({ hasText: "order.added" }).first();
      expect(await added.locator("span").textContent()).toContain(`status: ${HOSTILE}`);
      await page.fill("#q", String(order));
      await page.click("#search button");
      await page.waitForSelector("#results:not([hidden]) tbody tr");
      expect(await text(page, "#results tbody td:nth-child(3)")).toBe(HOSTILE);
      // The consumers table and the figures were written again by the script from status.json.
      await page.waitForFunction(
        (n) => document.querySelector('[data-figure="openOrders"]')?.textContent === n,
        String((await s.mirror.status()).openOrders),
      );
      expect(await text(page, '[data-table="consumers"] td')).toBe(HOSTILE);
      expect(await text(page, '[data-figure="lastError"]')).toBe(`${at} x: ${HOSTILE}`);
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator("main img, main script").count()).toBe(0);
    } finally {
      await page.close();
      handler.close();
      await server.close();
    }
  });

  it("refuses an unauthorised browser: authorize says no, or the page is reached off loopback", async () => {
    const guarded = mirrorStatusPage(s.mirror, { authorize: () => false });
    const server = await serve(guarded.node);
    const { page } = await open(server.url);
    try {
      const answer = await page.request.get(server.url);
      expect(answer.status()).toBe(401);
      expect(await page.locator("[data-figure]").count()).toBe(0);
    } finally {
      await page.close();
      await server.close();
    }
    const address = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === "IPv4")?.address;
    if (!address) return;
    const open_ = mirrorStatusPage(s.mirror);
    const remote = await serve(open_.node, address);
    const visit = await open(remote.url);
    try {
      expect((await visit.page.request.get(remote.url)).status()).toBe(403);
      expect(await visit.page.locator("[data-figure]").count()).toBe(0);
    } finally {
      await visit.page.close();
      await remote.close();
    }
  });
});
