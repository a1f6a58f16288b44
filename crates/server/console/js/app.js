// The console's shell: the key, who it is (`GET /v1/key`), the router over `#/…` routes,
// and each page's lifecycle (a page may return a function that stops its timers/streams).

import { api, setKey, clearKey, key } from "./api.js";
import { h, say, sayError, tick, form, field } from "./ui.js";
import { overview } from "./pages/overview.js";
import { stockList, skuPage, unitsPage } from "./pages/stock.js";
import { bookingsIndex, timeline } from "./pages/bookings.js";
import { queuesPage, queuePage, jobPage } from "./pages/queues.js";
import { eventsPage } from "./pages/events.js";

const routes = [
  [/^\/?$/, overview, "#/"],
  [/^\/stock$/, stockList, "#/stock"],
  [/^\/stock\/([^/]+)$/, skuPage, "#/stock"],
  [/^\/stock\/([^/]+)\/units$/, unitsPage, "#/stock"],
  [/^\/bookings$/, bookingsIndex, "#/bookings"],
  [/^\/bookings\/([^/]+)$/, timeline, "#/bookings"],
  [/^\/queues$/, queuesPage, "#/queues"],
  [/^\/queues\/([^/]+)$/, queuePage, "#/queues"],
  [/^\/jobs\/(\d+)$/, jobPage, "#/queues"],
  [/^\/events$/, eventsPage, "#/events"],
];

let me = null;
let stopPage = null;
// Counts navigations: a page that finishes loading after the next one began is stopped at once.
let navigation = 0;

// What the key may do: `can("jobs:manage")`. The server says which scopes it grants.
function can(scope) { return !!me && me.grants.includes(scope); }

async function whoami() {
  try {
    me = await api("/v1/key");
  } catch (e) {
    me = null;
    if (e.status !== 401) throw e;
  }
  const who = document.getElementById("who");
  who.replaceChildren();
  if (!me) return;
  who.append(
    `tenant ${me.tenant} · ${me.id ? "key " + me.id.slice(0, 8) : "no keys required"} · ${me.scopes.join(", ")} `,
    key() ? h("button", { type: "button", id: "sign-out", onclick: signOut }, "Forget key") : "");
}

function signOut() {
  clearKey();
  me = null;
  route();
}

function signIn(main) {
  main.replaceChildren(
    h("h1", null, "Sign in"),
    h("p", null, "Enter an API key of this server. It stays in this browser tab (session storage) and is sent as ",
      h("code", null, "Authorization: Bearer"), " with each call; the console can do only what the key's scopes allow."),
    form({ id: "sign-in" }, [field("API key", "key", { type: "password", autocomplete: "off", required: true, id: "key" })],
      "Use this key", async ({ key: k }) => {
        setKey(k.trim());
        await whoami();
        if (!me) { clearKey(); say("The server refused this key.", true); return; }
        route();
      }));
}

function parse() {
  const raw = location.hash.startsWith("#/") ? location.hash.slice(1) : "/";
  const [path, qs] = raw.split("?");
  return { path, query: Object.fromEntries(new URLSearchParams(qs || "")) };
}

async function route() {
  const mine = ++navigation;
  if (stopPage) { stopPage(); stopPage = null; }
  const main = document.getElementById("main");
  say("");
  if (!me) await whoami().catch(sayError);
  if (!me) {
    signIn(main);
    main.dataset.ready = "sign-in";
    return;
  }
  const { path, query } = parse();
  const found = routes.find(([re]) => re.test(path));
  for (const a of document.querySelectorAll("nav a")) {
    a.toggleAttribute("aria-current", found && a.getAttribute("href") === found[2]);
    if (found && a.getAttribute("href") === found[2]) a.setAttribute("aria-current", "page");
  }
  if (!found) {
    main.replaceChildren(h("h1", null, "Not found"), h("p", null, "No page here. ", h("a", { href: "#/" }, "Overview")));
    return;
  }
  // Each navigation draws into a view of its own: a page still loading when the next one
  // begins draws into a view no longer on screen.
  const view = h("div", null, h("p", { class: "muted" }, "Loading…"));
  main.replaceChildren(view);
  const ctx = { me, can, query, main: view, go: (hash) => { location.hash = hash; } };
  delete main.dataset.ready;
  try {
    ctx.params = path.match(found[0]).slice(1).map(decodeURIComponent);
    const stop = (await found[1](ctx)) || null;
    if (mine !== navigation) { if (stop) stop(); return; }
    stopPage = stop;
  } catch (e) {
    if (mine !== navigation) return;
    sayError(e);
    if (e.status === 401) { me = null; signIn(main); }
  }
  // Which page is on screen, once it has loaded (what a test waits for).
  main.dataset.ready = location.hash || "#/";
}

window.addEventListener("hashchange", (ev) => {
  if (location.hash === "#main") {
    // The skip link: focus the content, keep the page.
    history.replaceState(null, "", ev.oldURL);
    document.getElementById("main").focus();
    return;
  }
  route();
});
setInterval(tick, 1000);
route();
