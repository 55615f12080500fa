/**
 * The page's script and style, served by the handler at `app.js` and `app.css`, so the
 * Content-Security-Policy allows no inline script or style. The script writes every value from the
 * service with `textContent` or `setAttribute` (never `innerHTML`): text that looks like markup
 * stays text.
 */
export const APP_JS = `"use strict";
(() => {
  const $ = (selector) => document.querySelector(selector);
  const cell = (tag, text) => {
    const el = document.createElement(tag);
    el.textContent = text;
    return el;
  };
  const row = (cells) => {
    const tr = document.createElement("tr");
    for (const text of cells) tr.append(cell("td", text));
    return tr;
  };

  const SVG = "http://www.w3.org/2000/svg";
  const mark = (tag, attributes, title) => {
    const el = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, String(value));
    if (title !== undefined) {
      const tip = document.createElementNS(SVG, "title");
      tip.textContent = title;
      el.append(tip);
    }
    return el;
  };

  function draw(shapes) {
    const plot = $("#plot");
    if (!plot || !shapes) return;
    const marks = shapes.bars.map((b) =>
      mark("rect", { class: "bar", x: b.x, y: b.y, width: b.width, height: b.height }, b.title),
    );
    if (shapes.naive) {
      const n = shapes.naive;
      const width = plot.ownerSVGElement.viewBox.baseVal.width;
      marks.push(mark("line", { class: "naive", x1: 0, x2: width, y1: n.y, y2: n.y }));
      const label = mark("text", { x: 4, y: n.labelY });
      label.textContent = n.label;
      marks.push(label);
    }
    plot.replaceChildren(...marks);
  }

  function show(view) {
    for (const el of document.querySelectorAll("[data-figure]")) {
      const text = view.figures[el.dataset.figure];
      if (typeof text === "string") el.textContent = text;
    }
    $("#level").className = "level-" + view.level;
    for (const table of document.querySelectorAll("[data-table]")) {
      const rows = view.tables[table.dataset.table] || [];
      table.tBodies[0].replaceChildren(...rows.map(row));
      table.hidden = rows.length === 0;
    }
    for (const empty of document.querySelectorAll("[data-empty]")) {
      empty.hidden = (view.tables[empty.dataset.empty] || []).length > 0;
    }
    draw(view.shapes);
  }

  let pending;
  function refresh(delayMs) {
    clearTimeout(pending);
    pending = setTimeout(async () => {
      try {
        const answer = await fetch("status.json", { headers: { accept: "application/json" } });
        if (answer.ok) show(await answer.json());
      } catch {
        // The next change or the next period tries again.
      }
    }, delayMs);
  }
  setInterval(() => refresh(0), 30000);

  const list = $("#changes");
  const live = $("#live-state");
  const events = new EventSource("events");
  events.addEventListener("open", () => {
    live.textContent = "Live: changes appear here as they are committed.";
  });
  events.addEventListener("error", () => {
    live.textContent = "Disconnected; reconnecting…";
  });
  events.addEventListener("change", (event) => {
    const c = JSON.parse(event.data);
    const item = document.createElement("li");
    item.dataset.id = String(c.id);
    item.append(cell("time", c.observedAt), " ", cell("strong", c.type), " ", cell("span", c.text));
    list.prepend(item);
    while (list.children.length > 50) list.lastElementChild.remove();
    refresh(300);
  });
  // Every few seconds the server asks for fresh figures: requests and lag move between changes.
  events.addEventListener("status", () => refresh(0));

  const results = $("#results");
  const state = $("#search-state");
  $("#search").addEventListener("submit", async (event) => {
    event.preventDefault();
    const q = $("#q").value.trim();
    if (!q) return;
    state.textContent = "Searching…";
    try {
      const answer = await fetch("orders.json?q=" + encodeURIComponent(q));
      const body = await answer.json();
      if (!answer.ok) {
        state.textContent = body.message || "The search failed.";
        results.hidden = true;
        return;
      }
      results.tBodies[0].replaceChildren(
        ...body.orders.map((o) =>
          row([o.orderNumber, o.siteId, o.status, o.partnerOrderId, o.projectName, o.closed, o.updatedOn, o.total].map((v) => (v === null || v === undefined ? "" : String(v)))),
        ),
      );
      results.hidden = body.orders.length === 0;
      state.textContent = body.orders.length
        ? body.orders.length + " order(s)" + (body.more ? ", the first shown" : "")
        : "No stored order matches.";
    } catch {
      state.textContent = "The search failed.";
    }
  });
})();
`;

export const APP_CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#1d232a;color:#fff;padding:12px 20px;display:flex;gap:20px;align-items:center}
h1{font-size:20px;margin:0}h2{font-size:15px;margin:0 0 8px}
main{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:14px;padding:14px 20px}
section{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:12px 14px;overflow:auto}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}dt{color:#5b6570}dd{margin:0;word-break:break-word}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:3px 6px;border-bottom:1px solid #eef0f2}
#level{padding:3px 10px;border-radius:12px;margin:0}.level-ok{background:#1f7a3d}.level-warning{background:#a36500}.level-error{background:#b3261e}
#changes{margin:0;padding-left:20px;max-height:260px;overflow:auto}#changes time{color:#5b6570}
svg .bar{fill:#3a6ea5}svg .naive{stroke:#b3261e;stroke-dasharray:4 3}svg .axis{stroke:#9aa3ad}svg text{font-size:10px;fill:#5b6570}
form{display:flex;gap:8px;align-items:center;flex-wrap:wrap}input{flex:1;min-width:160px;padding:4px}
footer{padding:0 20px 14px;color:#5b6570}
`;
