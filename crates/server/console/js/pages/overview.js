// Overview: `GET /v1/stats` every 5 s — readiness, requests per 10 s with p50/p99, allocation
// outcomes, jobs by state, the feed's lag. Each part shows only when the key may read it.

import { api } from "../api.js";
import { h, table, facts, badge, num, when, sayError } from "../ui.js";

const REFRESH_MS = 5000;

export async function overview({ main }) {
  const body = h("div", { id: "overview" });
  main.replaceChildren(h("h1", null, "Overview"), body);
  const load = async () => {
    const s = await api("/v1/stats");
    body.replaceChildren(render(s));
  };
  await load();
  const timer = setInterval(() => load().catch(sayError), REFRESH_MS);
  return () => clearInterval(timer);
}

function render(s) {
  const perSecond = (b) => (b.requests * 1000) / s.bucket_ms;
  const recent = s.requests.filter((b) => b.requests > 0);
  // The last full minute (the current bucket is partial), or the current one at the start.
  const full = s.requests.slice(-7, -1);
  const last = full.length ? full : s.requests.slice(-1);
  const rate = last.reduce((a, b) => a + perSecond(b), 0) / Math.max(last.length, 1);
  const peak = Math.max(1, ...s.requests.map(perSecond));
  return h("div", null,
    h("div", { class: "cards" },
      card("Instance", facts([
        ["Backend", s.backend],
        ["Version", s.version],
        ["Up for", duration(s.uptime_s)],
        ["Ready", s.ready ? badge("ready", "good") : badge("not ready", "bad")],
        ["Database", health(s.database)],
        ["Redis", s.redis ? health(s.redis) : "not configured"],
      ]), s.problems.length ? h("ul", { class: "problems" }, s.problems.map((p) => h("li", null, p))) : null),
      card(`Instances (${s.instances.length})`, h("ul", { id: "instances" }, s.instances.map((i) =>
        h("li", null, h("code", null, i.id.slice(0, 8)), ` ${i.version}`, i.this ? " (this one)" : "",
          h("br"), h("span", { class: "muted" }, "up since ", when(i.started_at)))))),
      card("Requests (this tenant)", facts([
        ["Last minute", `${rate.toFixed(1)} req/s`],
        ["p50 / p99 now", latest(s.requests)],
      ])),
      s.allocations ? card("Allocations, last 5 min", facts([
        ["Made", num(s.allocations.made)],
        ["Refused (409)", num(s.allocations.refused)],
        ["Rejected (4xx)", num(s.allocations.rejected)],
        ["Failed (5xx)", num(s.allocations.failed)],
      ])) : null,
      s.jobs ? card(`Jobs (${num(s.jobs.queues)} queues)`, facts(Object.entries(s.jobs.counts).map(([k, v]) => [k, num(v)]))) : null,
      s.feed_lag_ms !== null && s.feed_lag_ms !== undefined ? card("Change feed", facts([
        ["Lag (all tenants)", `${num(s.feed_lag_ms)} ms`], ["Newest cursor", num(s.feed_cursor)],
      ])) : null),
    h("h2", null, "Requests per 10 s, last 5 minutes"),
    table(null, [
      ["Since start", (b) => duration(b.start_s)],
      ["Requests/s", (b) => h("span", null, h("meter", { min: 0, max: peak, value: perSecond(b), "aria-hidden": "true" }), " ", perSecond(b).toFixed(1)), { num: true }],
      ["5xx", (b) => num(b.server_errors), { num: true }],
      ["p50", (b) => micros(b.latency_us_p50), { num: true }],
      ["p99", (b) => micros(b.latency_us_p99), { num: true }],
    ], recent.slice().reverse(), "No requests from this tenant in the last 5 minutes."));
}

function health(h) {
  return h === "ok" ? badge("ok", "good") : badge("unavailable", "bad");
}

function card(title, ...content) {
  return h("section", { class: "card", "aria-label": title }, h("h2", null, title), content);
}

function latest(buckets) {
  const b = buckets.slice().reverse().find((x) => x.requests > 0);
  return b ? `${micros(b.latency_us_p50)} / ${micros(b.latency_us_p99)}` : "—";
}

export function micros(us) {
  if (!us) return "—";
  return us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${us} µs`;
}

export function duration(s) {
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
