import { html, type SafeHtml } from "./html";
import type { ChartData, StatusView } from "./view";

/** Figures of the health panel, in order, with their labels (`data-figure` names them for the script). */
const HEALTH: [string, string][] = [
  ["health", "Health"],
  ["lastSweep", "Last sweep"],
  ["nextSweep", "Next sweep"],
  ["sweepHolder", "Sweep held by"],
  ["lastError", "Last error"],
  ["account", "Account"],
  ["schemaVersion", "Schema version"],
];
const WORK: [string, string][] = [
  ["openOrders", "Open orders"],
  ["dueNow", "Due now"],
  ["dueLag", "Oldest due lag"],
  ["pollInterval", "Poll interval"],
  ["webhooks", "Webhooks"],
];
const REQUESTS: [string, string][] = [
  ["requestsLastHour", "Requests this hour"],
  ["requests48h", "Requests, last 48 h"],
  ["naivePerHour", "Naive poller, per hour"],
  ["naiveHow", "How the naive figure is computed"],
];
const TABLES: Record<string, string[]> = {
  consumers: ["Consumer", "Position", "Lag (changes)", "Lag (time)"],
  invalid: ["Order", "Field", "Reason", "Last tried"],
  other: ["Field", "Value"],
};

/** The whole page: figures rendered here, so it reads without the script; the script keeps it live. */
export function renderPage(view: StatusView): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>partner-orders mirror status</title>
<link rel="stylesheet" href="app.css">
<script src="app.js" defer></script>
</head>
<body>
<header><h1>Mirror status</h1><p id="level" class="level-${view.level}" data-figure="health">${view.figures.health}</p></header>
<main>
<section><h2>Health</h2>${figures(view, HEALTH)}</section>
<section><h2>Open orders and polls</h2>${figures(view, WORK)}</section>
<section><h2>Consumers</h2>${table(view, "consumers", "No named consumer yet.")}</section>
<section><h2>Orders kept out</h2>${table(view, "invalid", "None: every order read decoded.")}</section>
<section><h2>Requests per hour</h2>${figures(view, REQUESTS)}<div id="chart">${chart(view.chart)}</div></section>
<section><h2>Latest changes</h2><p id="live-state">Connecting…</p><ol id="changes" reversed></ol></section>
<section><h2>Search stored orders</h2>
<form id="search" action="orders.json" method="get" role="search">
<label for="q">Order number, partner order id or status</label>
<input id="q" name="q" maxlength="200" autocomplete="off" required>
<button type="submit">Search</button>
</form>
<p id="search-state"></p>
<table id="results" hidden><thead><tr><th>Order</th><th>Site</th><th>Status</th><th>Partner order id</th><th>Project</th><th>Closed</th><th>Updated</th><th>Total</th></tr></thead><tbody></tbody></table>
</section>
<section><h2>Other fields</h2>${table(view, "other", "None.")}</section>
</main>
<footer>Read-only. Figures from <code>mirror.status()</code>, refreshed as changes arrive and every few seconds.</footer>
</body>
</html>
`;
}

function figures(view: StatusView, list: [string, string][]): SafeHtml {
  return html`<dl>${list.map(
    ([name, label]) => html`<dt>${label}</dt><dd data-figure="${name}">${view.figures[name]}</dd>`,
  )}</dl>`;
}

function table(view: StatusView, name: string, empty: string): SafeHtml {
  const rows = view.tables[name] ?? [];
  return html`<table data-table="${name}"${rows.length ? "" : html` hidden`}><thead><tr>${(
    TABLES[name] ?? []
  ).map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows.map(
    (row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`,
  )}</tbody></table><p data-empty="${name}"${rows.length ? html` hidden` : ""}>${empty}</p>`;
}

const WIDTH = 480;
const HEIGHT = 140;
const BOTTOM = 20;

/** The chart's marks as numbers and text: rendered here, and redrawn by the page's script. */
export interface ChartShapes {
  /** One bar per hour with requests, with its tooltip. */
  bars: { x: string; y: string; width: string; height: string; title: string }[];
  /** The naive poller's line and its label; null while the order count is unknown. */
  naive: { y: string; labelY: string; label: string } | null;
}

/**
 * Bars of requests per hour over the last 48 hours, and a dashed line at the naive poller's rate,
 * on one linear scale, so the gap between them is what the mirror saves.
 */
export function chartShapes(data: ChartData): ChartShapes {
  const slots = 48;
  const newest = data.hours[data.hours.length - 1]?.[0] ?? 0;
  const top = Math.max(1, data.naivePerHour ?? 0, ...data.hours.map(([, n]) => n));
  const plot = HEIGHT - BOTTOM;
  const barWidth = WIDTH / slots;
  const y = (n: number) => plot - (n / top) * (plot - 10);
  const bars: ChartShapes["bars"] = [];
  for (const [start, n] of data.hours) {
    const slot = slots - 1 - Math.round((newest - start) / 3_600_000);
    if (slot < 0) continue;
    bars.push({
      x: (slot * barWidth + 1).toFixed(1),
      y: y(n).toFixed(1),
      width: (barWidth - 2).toFixed(1),
      height: (plot - y(n)).toFixed(1),
      title: `${new Date(start).toISOString().slice(0, 13)}:00Z: ${n} requests`,
    });
  }
  const naive =
    data.naivePerHour === null
      ? null
      : {
          y: y(data.naivePerHour).toFixed(1),
          labelY: Math.max(10, y(data.naivePerHour) - 4).toFixed(1),
          label: `naive poller: ${data.naivePerHour}/h`,
        };
  return { bars, naive };
}

/** The chart as SVG; its marks sit in `#plot`, which the page's script redraws. */
export function chart(data: ChartData): SafeHtml {
  const { bars, naive } = chartShapes(data);
  const plot = HEIGHT - BOTTOM;
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="Requests per hour over the last 48 hours, against a naive poller"><line class="axis" x1="0" x2="${WIDTH}" y1="${plot}" y2="${plot}"/><g id="plot">${bars.map(
    (b) =>
      html`<rect class="bar" x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}"><title>${b.title}</title></rect>`,
  )}${
    naive
      ? html`<line class="naive" x1="0" x2="${WIDTH}" y1="${naive.y}" y2="${naive.y}"/><text x="4" y="${naive.labelY}">${naive.label}</text>`
      : ""
  }</g><text x="4" y="${HEIGHT - 5}">48 h ago</text><text x="${WIDTH - 4}" y="${HEIGHT - 5}" text-anchor="end">this hour</text></svg>`;
}
