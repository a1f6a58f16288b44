// Stock: the SKU list (search by name prefix, low-stock and sold-out filters, cursor pages),
// a SKU's page (levels per location, active holds counting down, its ledger and events,
// live from the change feed), and a unit-tracked SKU's units.

import { api, follow } from "../api.js";
import { h, fill, table, facts, badge, num, when, countdown, button, form, field, choice, pager, chart, say, sayError } from "../ui.js";

// Rows per page of every listing here.
const PAGE = 50;
// How often a page without the feed (no events:read) reads again, ms.
const POLL_MS = 5000;
// Active holds shown on a SKU's page (the soonest to expire first).
const HOLDS_SHOWN = 100;
// The low-stock filter's default threshold (the API's available_below).
const LOW_STOCK_DEFAULT = 10;
// Ledger entries the stock chart reads, at most (pages of the API's largest page size).
const CHART_ENTRIES = 5000;
const CHART_PAGE = 1000;

// "sold out" / "low stock" as words (never colour alone).
function stockBadge(s) {
  if (s.available <= 0) return badge("sold out", "bad");
  if (s.low_stock_below !== null && s.low_stock_below !== undefined && s.available < s.low_stock_below) return badge("low stock", "warn");
  return "";
}

export async function stockList({ main, query, go }) {
  const filter = query.filter || "all";
  const below = filter === "sold_out" ? 1 : filter === "low" ? Number(query.below || LOW_STOCK_DEFAULT) : null;
  const list = h("div", { id: "sku-list" });
  fill(main,
    h("h1", null, "Stock"),
    form({ role: "search", id: "sku-search" }, [
      field("SKU starts with", "q", { value: query.q || "", type: "search", autocomplete: "off" }),
      choice("Show", "filter", [["all", "All SKUs"], ["low", "Low stock"], ["sold_out", "Sold out"]], filter),
      field("Low stock: available below", "below", { type: "number", min: 1, value: query.below || LOW_STOCK_DEFAULT }),
    ], "Search", async (v) => {
      go("#/stock?" + new URLSearchParams({ q: v.q, filter: v.filter, below: v.below }).toString());
    }),
    list);
  await pager(list, async (after) => {
    const page = await api("/v1/skus", { query: { prefix: query.q, available_below: below, after, limit: PAGE } });
    return { items: page.skus, next: page.next };
  }, (skus) => table(null, [
    ["SKU", (s) => h("a", { href: `#/stock/${encodeURIComponent(s.sku)}` }, s.sku)],
    ["On hand", (s) => num(s.on_hand), { num: true }],
    ["Held", (s) => num(s.held), { num: true }],
    ["Available", (s) => num(s.available), { num: true }],
    ["Status", stockBadge],
  ], skus, "No SKU matches."));
}

export async function skuPage(ctx) {
  const { main, params: [sku], can } = ctx;
  const top = h("div", { id: "sku" }), holds = h("div", { id: "holds" }), ledger = h("div", { id: "ledger" });
  const events = h("div", { id: "sku-events" });
  const feed = h("span", { id: "feed-state" });
  const trend = h("div", { id: "sku-trend" });
  // Holds whose release is being confirmed: a live refresh keeps the question open.
  const asking = new Set();
  // The ledger as the chart has read it so far (each refresh reads only what is new).
  const read = { entries: [], after: 0 };
  fill(main, h("h1", null, "SKU ", h("code", null, sku), " ", feed), top, trend,
    h("h2", null, "Active holds"), holds, h("h2", null, "Ledger"), ledger,
    can("events:read") ? [h("h2", null, "Events"), events] : null);
  const refresh = async () => {
    const s = await api(`/v1/skus/${encodeURIComponent(sku)}`);
    fill(top, facts([
      ["Status", stockBadge(s) || badge("in stock", "good")],
      ["On hand", num(s.on_hand)], ["Held", num(s.held)], ["Available", num(s.available)],
      ["Incoming", num(s.incoming ?? 0)],
      ["Damaged", num(s.damaged ?? 0)], ["Quality control", num(s.quality_control ?? 0)],
      ["Safety stock", num(s.safety_stock ?? 0)],
      ["Low stock below", s.low_stock_below ?? "—"],
      ["Units", h("a", { href: `#/stock/${encodeURIComponent(sku)}/units` }, "units of this SKU (unit-tracked SKUs)")],
    ]), s.levels && s.levels.length ? table("Levels per location", [
      ["Location", (l) => l.location], ["On hand", (l) => num(l.on_hand), { num: true }],
      ["Held", (l) => num(l.held), { num: true }], ["Available", (l) => num(l.available), { num: true }],
      ["Incoming", (l) => num(l.incoming ?? 0), { num: true }],
      ["Damaged", (l) => num(l.damaged ?? 0), { num: true }],
      ["Quality control", (l) => num(l.quality_control ?? 0), { num: true }],
      ["Safety stock", (l) => num(l.safety_stock ?? 0), { num: true }],
    ], s.levels) : null);
    const page = await api("/v1/holds", { query: { sku, status: "held", limit: HOLDS_SHOWN } });
    fill(holds, table(null, [
      ["Hold", (x) => x.kind === "stock" ? h("code", null, x.id)
        : h("span", null, h("code", null, x.id), " ", h("span", { class: "muted" }, `(${x.kind})`))],
      ["Quantity", (x) => num(x.lines.filter((l) => l.sku === sku).reduce((a, l) => a + l.quantity, 0)), { num: true }],
      ["Other SKUs in it", otherLines(sku)],
      ["Expires", (x) => h("span", null, countdown(x.expires_at), " ", h("span", { class: "muted" }, "(", when(x.expires_at), ")"))],
      ["", (x) => can("stock:write") ? releaseButton(x, sku, refresh, asking) : ""],
    ], page.holds, "No active holds."));
    fill(trend, await stockChart(sku, s, read));
  };
  // The feed's position before the first read, so no change between the two is missed.
  const cursor = can("events:read") ? (await api("/v1/stats")).feed_cursor : null;
  await refresh();
  await pager(ledger, async (after) => {
    const p = await api(`/v1/skus/${encodeURIComponent(sku)}/ledger`, { query: { after, limit: PAGE } });
    return { items: p.entries, next: p.next };
  }, (entries) => table(null, [
    ["#", (e) => e.id, { num: true }], ["At", (e) => when(e.at)], ["Kind", (e) => e.kind],
    ["On hand Δ", (e) => num(e.delta), { num: true }], ["Held Δ", (e) => num(e.held_delta), { num: true }],
    ["Ref", (e) => e.ref ? h("code", null, e.ref) : "—"], ["Actor", (e) => e.actor || "—"],
  ], entries, "No ledger entries."));
  if (can("events:read")) {
    await pager(events, async (after) => {
      // Its own events and those of its holds, allocations, returns, transfers, adjustments.
      const p = await api("/v1/events", { query: { sku, after: after ?? 0, limit: PAGE } });
      return { items: p.events, next: p.events.length === PAGE ? p.next : null };
    }, eventTable);
  }
  if (cursor === null || cursor === undefined) {
    // No feed to follow (no events:read, or its position unknown): read again now and then.
    feed.replaceChildren(badge(`refreshed every ${POLL_MS / 1000} s`, ""));
    const timer = setInterval(() => refresh().catch(sayError), POLL_MS);
    return () => clearInterval(timer);
  }
  return live(sku, cursor, refresh, feed);
}

// A hold's lines of other SKUs than the page's, the units it holds (a unit line's, by
// serial) and its bookings (a booking line's: resource, range, quantity): what a release of
// it gives back beside this SKU.
function otherLines(sku) {
  return (x) => {
    const others = x.lines.filter((l) => l.sku !== sku).map((l) => `${l.sku} × ${l.quantity}`).join(", ");
    const units = (x.units || []).map((u) => u.serial).join(", ");
    const bookings = (x.bookings || []).map(bookingLine).join(", ");
    return [others, units && `units ${units}`, bookings && `bookings ${bookings}`].filter(Boolean).join(" · ") || "—";
  };
}

// One booking of a hold, as its line reads: `bay-7 18:00–23:00 × 1` (local times).
function bookingLine(b) {
  return `${b.resource} ${when(b.start)} – ${when(b.end)} × ${b.quantity ?? 1}`;
}

// "Release" of a hold seen from one SKU's page. A hold of this SKU alone is released at
// once; one that also holds other SKUs asks first, naming them (a release gives back every
// line of the hold).
function releaseButton(x, sku, refresh, asking) {
  const others = x.lines.filter((l) => l.sku !== sku).map((l) => l.sku)
    .concat((x.bookings || []).map((b) => b.resource));
  const release = async () => {
    asking.delete(x.id);
    await api(`/v1/holds/${encodeURIComponent(x.id)}/release`, { method: "POST", body: {} });
    say(`Hold ${x.id} released${others.length ? ` (with its lines of ${others.join(", ")})` : ""}.`);
    await refresh();
  };
  if (!others.length) return button("Release", release, { class: "danger" });
  const cell = h("span", { class: "release" });
  const question = () => fill(cell, h("span", { class: "confirm", role: "alert" },
    `This releases the whole hold, also ${others.join(", ")}. `),
  button(`Release all ${x.lines.length + (x.bookings || []).length} lines`, release, { class: "danger", "data-confirm": x.id }),
  button("Keep", async () => { asking.delete(x.id); fill(cell, ask); }));
  const ask = button("Release…", async () => { asking.add(x.id); question(); });
  return asking.has(x.id) ? question() : fill(cell, ask);
}

// On hand and available over the SKU's ledger (each entry moves on hand by `delta` and held
// by `held_delta`): from the first entry, at most CHART_ENTRIES of them; `read` keeps what
// earlier calls read.
async function stockChart(sku, s, read) {
  const entries = read.entries;
  while (entries.length < CHART_ENTRIES) {
    const p = await api(`/v1/skus/${encodeURIComponent(sku)}/ledger`, { query: { after: read.after, limit: CHART_PAGE } });
    entries.push(...p.entries);
    if (p.entries.length) read.after = p.entries[p.entries.length - 1].id;
    if (p.next === null || p.next === undefined) break;
  }
  let onHand = 0, held = 0;
  const x = [], hand = [], avail = [];
  for (const e of entries) {
    onHand += e.delta || 0;
    held += e.held_delta || 0;
    x.push(Date.parse(e.at) / 1000);
    hand.push(onHand);
    avail.push(onHand - held);
  }
  if (x.length) {
    // The level holds until now.
    x.push(Math.max(Date.now() / 1000, x[x.length - 1]));
    hand.push(onHand);
    avail.push(onHand - held);
  }
  const capped = entries.length >= CHART_ENTRIES ? ` (its first ${CHART_ENTRIES} changes)` : "";
  return chart(`On hand and available of ${sku} over its ledger${capped}; now ${num(s.on_hand)} on hand, ${num(s.available)} available`,
    x, [{ label: "on hand", values: hand }, { label: "available", values: avail }], { stepped: true, id: "sku-chart" });
}

// Refresh the SKU's page when the feed says something happened to it (debounced), from
// `cursor` on.
function live(sku, cursor, refresh, feed) {
  let pending = null;
  const needle = JSON.stringify(sku);
  return follow({ after: cursor }, (ev) => {
    if (ev.object !== sku && !JSON.stringify(ev.data).includes(needle)) return;
    clearTimeout(pending);
    pending = setTimeout(() => refresh().catch(sayError), 200);
  }, (state) => feed.replaceChildren(badge(state === "live" ? "live" : state, state === "live" ? "good" : "warn")));
}

export function eventTable(events) {
  return table(null, [
    ["Cursor", (e) => e.cursor, { num: true }], ["At", (e) => when(e.at)], ["Type", (e) => e.type],
    ["Object", (e) => h("code", null, e.object)],
    ["Data", (e) => h("code", null, JSON.stringify(e.data))],
  ], events, "No events.");
}

export async function unitsPage({ main, params: [sku], query, go }) {
  const list = h("div", { id: "units" });
  fill(main, h("h1", null, "Units of ", h("a", { href: `#/stock/${encodeURIComponent(sku)}` }, sku)),
    form({ id: "unit-filter" }, [
      choice("Status", "status", [["", "Any"], ["available", "Available"], ["held", "Held"], ["allocated", "Allocated"]], query.status || ""),
      field("Location", "location", { value: query.location || "" }),
      field("Lot", "lot", { value: query.lot || "" }),
    ], "Filter", async (v) => go(`#/stock/${encodeURIComponent(sku)}/units?` + new URLSearchParams(v).toString())),
    list);
  await pager(list, async (after) => {
    const p = await api(`/v1/skus/${encodeURIComponent(sku)}/units`, {
      query: { status: query.status, location: query.location, lot: query.lot, after, limit: PAGE },
    });
    return { items: p.units, next: p.next };
  }, (units) => table(null, [
    ["Serial", (u) => h("code", null, u.serial)], ["Status", (u) => u.status || "—"],
    ["Location", (u) => u.location || "—"], ["Lot", (u) => u.lot || "—"],
    ["Received", (u) => when(u.received_at)], ["Expires", (u) => when(u.expires_at)],
  ], units, "No units match."));
}
