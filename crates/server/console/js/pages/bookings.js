// Bookings: the resources booked lately (from the change feed), and a resource's bookings
// over a window as a timeline — each booking placed at its start, as long as it lasts — with
// the free gaps between them and a chart of how full each day is (`GET
// /v1/resources/{resource}/bookings` and `/availability`, half-open ranges).

import { api } from "../api.js";
import { h, fill, table, when, form, field, badge, chart } from "../ui.js";

// Days a timeline shows when the address names none: today and the six after it.
const DEFAULT_DAYS = 7;
// Events of the feed read for the list of resources (the latest ones).
const RECENT_EVENTS = 1000;
const DAY_MS = 86400000;

export async function bookingsIndex({ main, go, can }) {
  const recent = h("div", { id: "resources" });
  fill(main, h("h1", null, "Bookings"),
    h("p", null, "Bookings are kept per resource (a room, a table, a person). Name one to see its timeline."),
    form({ id: "resource-form" }, [field("Resource", "resource", { required: true, autocomplete: "off" })],
      "Show timeline", async ({ resource }) => go(`#/bookings/${encodeURIComponent(resource.trim())}`)),
    h("h2", null, "Resources booked lately"), recent);
  if (!can("events:read")) {
    fill(recent, h("p", { class: "muted" }, "This key has no events:read scope: name a resource above."));
    return;
  }
  fill(recent, resourceList(await recentResources()));
}

// The resources of the latest booking events, the most recently booked first, with how many
// of those events each has.
async function recentResources() {
  const stats = await api("/v1/stats");
  const cursor = stats.feed_cursor || 0;
  const seen = new Map();
  let after = Math.max(0, cursor - RECENT_EVENTS);
  for (;;) {
    const p = await api("/v1/events", { query: { types: "booking.created", after, limit: 1000 } });
    for (const e of p.events) {
      const r = e.data && e.data.resource;
      if (r) seen.set(r, { resource: r, count: (seen.get(r)?.count || 0) + 1, at: e.at });
    }
    if (!p.events.length || p.next === null || p.next === undefined || p.next <= after) break;
    after = p.next;
  }
  return [...seen.values()].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
}

function resourceList(resources) {
  return table(null, [
    ["Resource", (r) => h("a", { href: `#/bookings/${encodeURIComponent(r.resource)}` }, r.resource)],
    ["Bookings made lately", (r) => String(r.count), { num: true }],
    ["Last booked", (r) => when(r.at)],
  ], resources, "No booking in the latest events of the feed.");
}

function dayStart(iso) {
  const d = iso ? new Date(iso + "T00:00:00Z") : new Date();
  d.setUTCHours(0, 0, 0, 0);
  return d;
}

export async function timeline({ main, params: [resource], query, go }) {
  const from = dayStart(query.day);
  const days = Math.min(Math.max(Number(query.days || DEFAULT_DAYS), 1), 31);
  const to = new Date(from.getTime() + days * DAY_MS);
  const window = { from: from.toISOString(), to: to.toISOString() };
  const path = `/v1/resources/${encodeURIComponent(resource)}`;
  const [list, free] = await Promise.all([
    api(`${path}/bookings`, { query: window }),
    api(`${path}/availability`, { query: window }),
  ]);
  const segments = [
    ...list.bookings.map((b) => ({ kind: "booked", start: b.start, end: b.end, b })),
    ...free.free.map((f) => ({ kind: "free", start: f.start, end: f.end })),
  ].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  fill(main,
    h("h1", null, "Timeline of ", h("code", null, resource)),
    form({ id: "window-form" }, [
      field("First day (UTC)", "day", { type: "date", value: from.toISOString().slice(0, 10) }),
      field("Days", "days", { type: "number", min: 1, max: 31, value: days }),
    ], "Show", async (v) => go(`#/bookings/${encodeURIComponent(resource)}?` + new URLSearchParams(v).toString())),
    h("p", { class: "muted" }, "From ", when(window.from), " to ", when(window.to), " (half-open: a range ends where the next may start)."),
    fillChart(list.bookings, from, days),
    h("ol", { class: "timeline", "aria-label": "Bookings and free gaps in order" },
      segments.map((s) => segment(s, from.getTime(), to.getTime()))),
    slotTable(free.slots),
    h("h2", null, "Bookings"),
    table(null, [
      ["Booking", (b) => h("code", null, b.id)], ["Status", (b) => b.status], ["Start", (b) => when(b.start)],
      ["End", (b) => when(b.end)], ["Quantity", (b) => String(b.quantity ?? 1), { num: true }],
      ["Holder", (b) => b.holder || "—"], ["Expires", (b) => when(b.expires_at)],
    ], list.bookings, "No bookings in this window."));
}

// A resource with capacity: each slot of the window with its capacity, what confirmed
// bookings use, what live holds take, what is free (bounded by its pools too) and how full it
// is (`slots` of `/availability`, read in one snapshot). Nothing for a resource without slots.
function slotTable(slots) {
  if (!slots) return null;
  const full = (s) => (s.capacity > 0 ? Math.round(((s.capacity - s.free) / s.capacity) * 100) : 100);
  return h("section", { id: "slots" }, h("h2", null, "Slots"),
    table(null, [
      ["Start", (s) => when(s.start)], ["End", (s) => when(s.end)],
      ["Capacity", (s) => String(s.capacity), { num: true }], ["Used", (s) => String(s.used), { num: true }],
      ["Held", (s) => String(s.held), { num: true }], ["Free", (s) => String(s.free), { num: true }],
      ["Fill", (s) => (s.free === 0 ? badge("sold out", "warn") : `${full(s)} %`)],
    ], slots, "No slot in this window."));
}

// One row of the timeline: what and when, and a bar placed in the window's track at its
// start (clipped to the window), as wide as it lasts.
function segment(s, from, to) {
  const span = to - from;
  const start = Math.max(Date.parse(s.start), from), end = Math.min(Date.parse(s.end), to);
  const bar = h("div", { class: `bar ${s.kind}`, "data-left": ((start - from) / span).toFixed(4) });
  bar.style.left = `${((start - from) / span) * 100}%`;
  bar.style.width = `max(2px, ${((end - start) / span) * 100}%)`;
  return h("li", null, h("span", null, s.kind === "booked" ? badge(s.b.status, "warn") : badge("free", "good"), " ",
    when(s.start), " – ", when(s.end), s.b && s.b.holder ? ` · ${s.b.holder}` : ""),
  h("div", { class: "track", "aria-hidden": "true" }, bar));
}

// How full each day of the window is: the share of its hours under a live booking (held or
// confirmed).
function fillChart(bookings, from, days) {
  const x = [], booked = [];
  for (let d = 0; d < days; d++) {
    const start = from.getTime() + d * DAY_MS, end = start + DAY_MS;
    let ms = 0;
    for (const b of bookings.filter((b) => b.status === "held" || b.status === "confirmed")) {
      ms += Math.max(0, Math.min(Date.parse(b.end), end) - Math.max(Date.parse(b.start), start));
    }
    x.push((start + DAY_MS / 2) / 1000);
    booked.push(Math.round((ms / DAY_MS) * 1000) / 10);
  }
  const range = [from.getTime() / 1000, (from.getTime() + days * DAY_MS) / 1000];
  return chart("Booked share of each day (%)", x, [{ label: "booked %", values: booked }],
    { bars: true, range, id: "fill-chart" });
}
