// Events: the change feed live (Server-Sent Events read with fetch), newest first, the last
// 200 kept; pause to read, resume to catch up from where it stopped.

import { api, follow } from "../api.js";
import { h, badge } from "../ui.js";
import { eventTable } from "./stock.js";

const KEEP = 200;

export async function eventsPage({ main, can }) {
  if (!can("events:read")) {
    main.replaceChildren(h("h1", null, "Events"), h("p", null, "This key has no events:read scope."));
    return null;
  }
  const stats = await api("/v1/stats");
  if (stats.feed_cursor === null || stats.feed_cursor === undefined) {
    main.replaceChildren(h("h1", null, "Events"), h("p", null, "The feed's position could not be read; try again shortly."));
    return null;
  }
  const state = h("span", { id: "feed-state" }, badge("connecting", "warn"));
  const list = h("div", { id: "events" });
  const events = [];
  let paused = false;
  const show = () => list.replaceChildren(eventTable(events));
  const toggle = h("button", { type: "button", "aria-pressed": "false" }, "Pause");
  toggle.addEventListener("click", () => {
    paused = !paused;
    toggle.setAttribute("aria-pressed", String(paused));
    toggle.textContent = paused ? "Resume" : "Pause";
    if (!paused) show();
  });
  main.replaceChildren(h("h1", null, "Events"),
    h("p", null, "The tenant's change feed as it happens, from cursor ", String(stats.feed_cursor), ". ", state, " ", toggle),
    list);
  show();
  return follow({ after: stats.feed_cursor }, (ev) => {
    events.unshift(ev);
    events.length = Math.min(events.length, KEEP);
    if (!paused) show();
  }, (s) => state.replaceChildren(badge(s, s === "live" ? "good" : "warn")));
}
