import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "../../../src/sync/status-page/html";
import { chart, chartShapes, renderPage } from "../../../src/sync/status-page/page";
import {
  duration,
  type PageStatus,
  redactUrls,
  statusView,
  withoutCredentials,
} from "../../../src/sync/status-page/view";
import { noWebhooks } from "../../support/fixtures";

const HOSTILE = `<script>alert(1)</script><img src=x onerror="alert(2)">'&`;

function status(extra: Partial<PageStatus> = {}): PageStatus {
  return {
    lastSweep: { at: "2026-03-01T12:00:00.000Z", ok: true },
    sweepHolder: null,
    openOrders: 12,
    dueNow: 3,
    oldestDueLagMs: 5_000,
    invalidOrders: [],
    lastError: null,
    consumers: [],
    schemaVersion: 3,
    account: { partnerId: "ptn_1", baseUrl: "https://api.example.test/" },
    ...noWebhooks,
    ...extra,
  };
}
const history = {
  hours: [[1_772_362_800_000, 40]] as [number, number][],
  orders: 450,
  sweepIntervalMs: 900_000,
};

describe("the escaping template", () => {
  it("escapes every interpolated value, keeps html`` fragments, drops null, joins lists", () => {
    expect(escapeHtml(HOSTILE)).toBe(
      "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;&#39;&amp;",
    );
    const inner = html`<b>${"<i>"}</b>`;
    expect(
      html`<p title="${'"x"'}">${inner}${null}${undefined}${false}${[1, html`<br>`, "<"]}</p>`.toString(),
    ).toBe('<p title="&quot;x&quot;"><b>&lt;i&gt;</b>1<br>&lt;</p>');
  });
});

describe("statusView", () => {
  it("formats every figure once: sweep, next sweep, lag, requests against a naive poller", () => {
    const view = statusView(status(), history);
    expect(view.level).toBe("ok");
    expect(view.figures).toMatchObject({
      health: "ok",
      lastSweep: "2026-03-01T12:00:00.000Z finished",
      nextSweep: "2026-03-01T12:15:00.000Z (expected)",
      sweepHolder: "nobody",
      lastError: "none",
      openOrders: "12",
      dueNow: "3",
      dueLag: "5 s",
      account: "ptn_1 at https://api.example.test/",
      requestsLastHour: "40",
      requests48h: "40",
      // ⌈450/200⌉ = 3 list pages + 900 reads = 903 a sweep, 4 sweeps an hour.
      naivePerHour: "3612",
    });
    expect(view.figures.naiveHow).toContain("⌈450 orders / 200⌉ list pages + 2 × 450");
    expect(view.chart).toEqual({
      hours: history.hours,
      naivePerHour: 3612,
      naiveHow: view.figures.naiveHow,
    });
  });

  it("says what is not known yet instead of a zero", () => {
    const view = statusView(status({ lastSweep: null, oldestDueLagMs: null, account: null }), null);
    expect(view.level).toBe("warning");
    expect(view.figures).toMatchObject({
      health: "warning: no sweep has finished yet",
      lastSweep: "none yet",
      nextSweep: "not known",
      dueLag: "none due",
      account: "not recorded yet",
      naivePerHour: "not known yet",
      webhooks: "unknown; no webhook received yet",
      pollInterval: "5 min at most (adaptive policy)",
    });
  });

  it("a failed sweep is an error; orders kept out and late polls are warnings", () => {
    const failed = statusView(
      status({ lastSweep: { at: "2026-03-01T12:00:00.000Z", ok: false, code: "http_503" } }),
      null,
    );
    expect(failed.level).toBe("error");
    expect(failed.figures.health).toBe("error: the last sweep failed (http_503)");
    const kept = statusView(
      status({
        oldestDueLagMs: 120_000,
        invalidOrders: [{ orderNumber: 7, field: "totals.order", reason: "bad", at: "t" }],
      }),
      null,
    );
    expect(kept.level).toBe("warning");
    expect(kept.figures.health).toBe("warning: 1 order(s) kept out, polls 2 min late");
    expect(kept.tables.invalid).toEqual([["7", "totals.order", "bad", "t"]]);
    expect(statusView(status({ oldestDueLagMs: 60_000 }), null).level).toBe("ok");
  });

  it("shows webhook health and the poll interval in words, and any field it does not know as text", () => {
    const health = status().webhookHealth;
    const healthy = statusView(
      status({
        webhookHealth: {
          ...health,
          state: "healthy",
          lastEventAt: "2026-03-01T11:59:00.000Z",
          eventsPerHour: 12.5,
        },
        pollIntervalMs: 3_600_000,
        ...({ somethingNew: "x" } as object),
      }),
      null,
    );
    expect(healthy.figures.webhooks).toBe(
      "healthy; last webhook 2026-03-01T11:59:00.000Z; 12.50 an hour",
    );
    expect(healthy.figures.pollInterval).toBe("1 h at most (adaptive policy)");
    expect(healthy.tables.other).toEqual([["somethingNew", "x"]]);
    const missed = statusView(
      status({
        webhookHealth: {
          ...health,
          state: "degraded",
          reason: "unannounced",
          lastEventAt: "2026-03-01T11:59:00.000Z",
          lastUnannounced: {
            at: "2026-03-01T12:00:00.000Z",
            orderNumber: 7,
            type: "shipment.shipped",
          },
        },
        pollPolicy: "fixed",
      }),
      null,
    );
    expect(missed.figures.webhooks).toBe(
      "degraded; a shipment.shipped on order 7 found at 2026-03-01T12:00:00.000Z without its webhook; last webhook 2026-03-01T11:59:00.000Z",
    );
    expect(missed.figures.pollInterval).toBe("5 min at most (fixed policy)");
    const silent = statusView(
      status({
        webhookHealth: { ...health, state: "degraded", reason: "silence", lastEventAt: "t" },
      }),
      null,
    );
    expect(silent.figures.webhooks).toBe(
      "degraded; no webhook for longer than their rate makes likely; last webhook t",
    );
  });

  it("never shows credentials: a base URL's user and password, a URL in an error", () => {
    const view = statusView(
      status({
        account: { partnerId: "p", baseUrl: "https://user:s3cret@api.example.test/" },
        lastError: {
          at: "t",
          code: "x",
          message: "connect postgres://po:hunter2@db:5432/orders failed",
        },
      }),
      null,
    );
    expect(JSON.stringify(view)).not.toMatch(/s3cret|hunter2/);
    expect(view.figures.lastError).toBe("t x: connect postgres://***@db:5432/orders failed");
    expect(withoutCredentials("not a url")).not.toContain("not a url");
    expect(redactUrls("a https://x@h b")).toBe("a https://***@h b");
  });

  it("lists consumers with their lag", () => {
    const view = statusView(
      status({ consumers: [{ name: "billing", position: 9, lagChanges: 4, lagMs: 3_725_000 }] }),
      null,
    );
    expect(view.tables.consumers).toEqual([["billing", "9", "4", "1 h 2 min"]]);
  });

  it("durations read as an operator says them", () => {
    expect([400, 1_000, 59_000, 60_000, 61_000, 3_600_000, 3_660_000].map(duration)).toEqual([
      "400 ms",
      "1 s",
      "59 s",
      "1 min",
      "1 min 1 s",
      "1 h",
      "1 h 1 min",
    ]);
  });
});

describe("the page", () => {
  it("renders hostile text from the service as text: no tag, no attribute", () => {
    const view = statusView(
      status({
        lastError: { at: "t", code: "c", message: HOSTILE },
        consumers: [{ name: HOSTILE, position: 1, lagChanges: 0, lagMs: 0 }],
        ...({ [HOSTILE]: HOSTILE } as object),
      }),
      null,
    );
    const page = renderPage(view).toString();
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img src=x");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    // The only script is the handler's own file.
    expect(page.match(/<script/g)).toEqual(["<script"]);
    expect(page).toContain('<script src="app.js" defer></script>');
  });

  it("draws a bar per hour and the naive poller's line on one scale", () => {
    const svg = chart({
      hours: [
        [0, 50],
        [3_600_000, 100],
      ],
      naivePerHour: 200,
      naiveHow: "",
    }).toString();
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(2);
    // Plot height 120 - 10: 100 of 200 reaches half way up from the axis at y=120.
    expect(svg).toContain('y="65.0" width="8.0" height="55.0"');
    expect(svg).toContain('<line class="naive" x1="0" x2="480" y1="10.0" y2="10.0"/>');
    expect(svg).toContain("naive poller: 200/h");
    expect(chart({ hours: [], naivePerHour: null, naiveHow: "" }).toString()).not.toContain(
      "naive poller:",
    );
  });

  it("gives the chart's marks as numbers and text, the ones the SVG is drawn from", () => {
    const data = {
      hours: [
        [0, 50],
        [3_600_000, 100],
      ] as [number, number][],
      naivePerHour: 200,
      naiveHow: "",
    };
    expect(chartShapes(data)).toEqual({
      bars: [
        {
          x: "461.0",
          y: "92.5",
          width: "8.0",
          height: "27.5",
          title: "1970-01-01T00:00Z: 50 requests",
        },
        {
          x: "471.0",
          y: "65.0",
          width: "8.0",
          height: "55.0",
          title: "1970-01-01T01:00Z: 100 requests",
        },
      ],
      naive: { y: "10.0", labelY: "10.0", label: "naive poller: 200/h" },
    });
    // The marks sit in #plot, the group the page's script redraws; the axis and labels stay.
    expect(chart(data).toString()).toMatch(
      /<g id="plot"><rect class="bar" x="461.0"[\s\S]*<\/text><\/g><text x="4" y="135">48 h ago/,
    );
    // An hour older than the 48 shown has no bar; an unknown naive rate has no line.
    const old = chartShapes({
      hours: [
        [0, 5],
        [48 * 3_600_000, 1],
      ],
      naivePerHour: null,
      naiveHow: "",
    });
    expect(old.bars.map((b) => b.title)).toEqual(["1970-01-03T00:00Z: 1 requests"]);
    expect(old.naive).toBeNull();
    // A high naive line's label stays inside the chart.
    expect(chartShapes({ hours: [], naivePerHour: 5, naiveHow: "" }).naive?.labelY).toBe("10.0");
  });
});

describe("statusView at its edges", () => {
  const noSweepYet = { hours: [], orders: null, sweepIntervalMs: 900_000 };

  it("expects a next sweep only with a last sweep and an interval", () => {
    expect(statusView(status(), { ...history, sweepIntervalMs: 0 }).figures.nextSweep).toBe(
      "not known",
    );
    expect(statusView(status({ lastSweep: null }), history).figures.nextSweep).toBe("not known");
    const failed = statusView(
      status({ lastSweep: { at: "2026-03-01T12:00:00.000Z", ok: false, code: "http_503" } }),
      null,
    );
    expect(failed.figures.lastSweep).toBe("2026-03-01T12:00:00.000Z failed (http_503)");
  });

  it("counts no requests before any were recorded", () => {
    const view = statusView(status(), null);
    expect([view.figures.requestsLastHour, view.figures.requests48h]).toEqual(["0", "0"]);
    expect(view.chart.hours).toEqual([]);
  });

  it("computes a naive rate only with both the order count and the sweep interval", () => {
    for (const h of [noSweepYet, { ...history, sweepIntervalMs: 0 }]) {
      const view = statusView(status(), h);
      expect(view.chart.naivePerHour).toBeNull();
      expect(view.figures.naivePerHour).toBe("not known yet");
      expect(view.figures.naiveHow).toBe("known after the first complete sweep");
    }
  });

  it("names who holds the sweep, and whether it is this process", () => {
    const holder = { holder: "host/7/a", since: "2026-03-01T11:00:00.000Z", expiresAt: "e" };
    expect(
      statusView(status({ sweepHolder: { ...holder, self: true } }), null).figures.sweepHolder,
    ).toBe("host/7/a (this process), since 2026-03-01T11:00:00.000Z, lease until e");
    expect(
      statusView(status({ sweepHolder: { ...holder, since: null, self: false } }), null).figures
        .sweepHolder,
    ).toBe("host/7/a, since unknown, lease until e");
  });

  it("warns of late polls alone, of kept-out orders alone, and not at exactly one minute", () => {
    const late = statusView(status({ oldestDueLagMs: 120_000 }), null);
    expect([late.level, late.figures.health]).toEqual(["warning", "warning: polls 2 min late"]);
    const kept = statusView(
      status({
        oldestDueLagMs: null,
        invalidOrders: [{ orderNumber: null, field: "orderNumber", reason: "missing", at: "t" }],
      }),
      null,
    );
    expect([kept.level, kept.figures.health]).toEqual(["warning", "warning: 1 order(s) kept out"]);
    expect(kept.tables.invalid).toEqual([["(no number)", "orderNumber", "missing", "t"]]);
    expect(statusView(status({ oldestDueLagMs: 60_000 }), null).figures.health).toBe("ok");
  });

  it("names an unannounced change only when the mirror says which", () => {
    const health = status().webhookHealth;
    const unnamed = status({
      webhookHealth: { ...health, state: "degraded", reason: "unannounced", lastUnannounced: null },
    });
    expect(statusView(unnamed, null).figures.webhooks).toBe("degraded; no webhook received yet");
    const silence = status({
      webhookHealth: {
        ...health,
        state: "degraded",
        reason: "silence",
        lastUnannounced: { at: "t", orderNumber: 7, type: "order.changed" },
      },
    });
    expect(statusView(silence, null).figures.webhooks).toBe(
      "degraded; no webhook for longer than their rate makes likely; no webhook received yet",
    );
  });

  it("shows a field it does not know: a duration for a number of ...Ms, else short redacted text", () => {
    const long = { list: "x".repeat(400) };
    // As JSON, with its brackets and quotes, exactly 300 characters: shown whole.
    const exact = ["y".repeat(296)];
    const view = statusView(
      status({
        ...({
          backoffMs: 90_000,
          count: 42,
          countMsx: 5,
          noteMs: "postgres://u:p@db",
          where: { url: "https://u:p@h/" },
          long,
          nothing: undefined,
        } as object),
      }),
      null,
    );
    const other = Object.fromEntries(view.tables.other as [string, string][]);
    expect(other).toEqual({
      backoffMs: "1 min 30 s",
      count: "42",
      countMsx: "5",
      noteMs: "postgres://***@db",
      where: '{"url":"https://***@h/"}',
      long: `${JSON.stringify(long).slice(0, 300)}…`,
      nothing: "undefined",
    });
    expect(JSON.stringify(exact)).toHaveLength(300);
    expect(statusView(status({ ...({ exact } as object) }), null).tables.other).toEqual([
      ["exact", JSON.stringify(exact)],
    ]);
  });

  it("redacts a URL's credentials at the start of the text too; an unparsable base URL says so", () => {
    expect(redactUrls("postgres://u:p@db/x")).toBe("postgres://***@db/x");
    expect(withoutCredentials("not a url")).toBe("(a base URL that does not parse)");
  });
});
