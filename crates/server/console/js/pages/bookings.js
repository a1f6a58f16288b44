// Bookings: a resource's bookings over a window as a timeline with the free gaps between
// them (`GET /v1/resources/{resource}/bookings` and `/availability`, half-open ranges).

import { api } from "../api.js";
import { h, table, when, form, field, badge } from "../ui.js";

export async function bookingsIndex({ main, go }) {
  main.replaceChildren(h("h1", null, "Bookings"),
    h("p", null, "Bookings are kept per resource (a room, a table, a person). Name one to see its timeline."),
    form({ id: "resource-form" }, [field("Resource", "resource", { required: true, autocomplete: "off" })],
      "Show timeline", async ({ resource }) => go(`#/bookings/${encodeURIComponent(resource.trim())}`)));
}

function dayStart(iso) {
  const d = iso ? new Date(iso + "T00:00:00Z") : new Date();
  d.setUTCHours(0, 0, 0, 0);
  return d;
}

export async function timeline({ main, params: [resource], query, go }) {
  const from = dayStart(query.day);
  const days = Math.min(Math.max(Number(query.days || 1), 1), 31);
  const to = new Date(from.getTime() + days * 86400000);
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
  const span = to.getTime() - from.getTime();
  main.replaceChildren(
    h("h1", null, "Timeline of ", h("code", null, resource)),
    form({ id: "window-form" }, [
      field("Day (UTC)", "day", { type: "date", value: from.toISOString().slice(0, 10) }),
      field("Days", "days", { type: "number", min: 1, max: 31, value: days }),
    ], "Show", async (v) => go(`#/bookings/${encodeURIComponent(resource)}?` + new URLSearchParams(v).toString())),
    h("p", { class: "muted" }, "From ", when(window.from), " to ", when(window.to), " (half-open: a range ends where the next may start)."),
    h("ol", { class: "timeline", "aria-label": "Bookings and free gaps in order" }, segments.map((s) => {
      const share = Math.max(0.5, ((Date.parse(s.end) - Date.parse(s.start)) / span) * 100);
      const bar = h("div", { class: `bar ${s.kind}`, "aria-hidden": "true" });
      bar.style.width = `${Math.min(share, 100)}%`;
      return h("li", null, h("span", null, s.kind === "booked" ? badge(s.b.status, "warn") : badge("free", "good"), " ",
        when(s.start), " – ", when(s.end), s.b && s.b.holder ? ` · ${s.b.holder}` : ""), bar);
    })),
    h("h2", null, "Bookings"),
    table(null, [
      ["Booking", (b) => h("code", null, b.id)], ["Status", (b) => b.status], ["Start", (b) => when(b.start)],
      ["End", (b) => when(b.end)], ["Holder", (b) => b.holder || "—"], ["Expires", (b) => when(b.expires_at)],
    ], list.bookings, "No bookings in this window."));
}
