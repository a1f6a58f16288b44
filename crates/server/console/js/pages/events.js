// Events: the change feed live (Server-Sent Events read with fetch), newest first, the last
// 200 kept, opening with the latest ones already in the feed; pause to read, resume to catch
// up from where it stopped.

import { api, follow } from "../api.js";
import { h, fill, badge } from "../ui.js";
import { eventTable } from "./stock.js";

const KEEP = 200;

export async function eventsPage({ main, can }) {
  if (!can("events:read")) {
    fill(main, h("h1", null, "Events"), h("p", null, "This key has no events:read scope."));
    return null;
  }
  const stats = await api("/v1/stats");
  if (stats.feed_cursor === null || stats.feed_cursor === undefined) {
    fill(main, h("h1", null, "Events"), h("p", null, "The feed's position could not be read; try again shortly."));
    return null;
  }
  const state = h("span", { id: "feed-state" }, badge("connecting", "warn"));
  const list = h("div", { id: "events" });
  // The latest events already in the feed, newest first.
  const start = Math.max(0, stats.feed_cursor - KEEP);
  const page = await api("/v1/events", { query: { after: start, limit: KEEP } });
  const events = page.events.filter((e) => e.cursor <= stats.feed_cursor).reverse();
  let paused = false;
  const show = () => list.replaceChildren(eventTable(events));
  const toggle = h("button", { type: "button", "aria-pressed": "false" }, "Pause");
  toggle.addEventListener("click", () => {
    paused = !paused;
    toggle.setAttribute("aria-pressed", String(paused));
    toggle.textContent = paused ? "Resume" : "Pause";
    if (!paused) show();
  });
  fill(main, h("h1", null, "Events"),
    h("p", null, "The tenant's change feed, newest first: the latest ", String(events.length),
      " events, then each as it happens. ", state, " ", toggle),
    list);
  show();
  return follow({ after: stats.feed_cursor }, (ev) => {
    events.unshift(ev);
    events.length = Math.min(events.length, KEEP);
    if (!paused) show();
  }, (s) => state.replaceChildren(badge(s, s === "live" ? "good" : "warn")));
}
