// Building pages from elements, never from HTML text: every value goes in as text, so nothing a client stored
// (a SKU name, a payload, an error) can become markup.

// An element: h("a", {href: "#/"}, "text", child, …). Attributes starting with "on" are
// listeners; `null`/`false` attributes and children are left out.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// A table: `columns` are [header, (row) => cell, {num: true}?]; `empty` shown without rows.
export function table(caption, columns, rows, empty = "Nothing here.") {
  if (!rows.length) return h("p", { class: "muted" }, empty);
  return h("table", null,
    caption ? h("caption", null, caption) : null,
    h("thead", null, h("tr", null, columns.map(([name, , o]) => h("th", { scope: "col", class: o && o.num ? "num" : null }, name)))),
    h("tbody", null, rows.map((r) => h("tr", null, columns.map(([, cell, o]) => h("td", { class: o && o.num ? "num" : null }, cell(r)))))));
}

// A definition list of [term, value] pairs.
export function facts(pairs) {
  return h("dl", { class: "facts" }, pairs.filter(Boolean).map(([k, v]) => [h("dt", null, k), h("dd", null, v)]));
}

export function badge(text, kind) { return h("span", { class: `badge ${kind || ""}` }, text); }

const numberFormat = new Intl.NumberFormat();
export function num(n) { return n === null || n === undefined ? "—" : numberFormat.format(n); }

export function when(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  return h("time", { datetime: iso, title: iso }, d.toLocaleString());
}

// A countdown to `iso`, kept current by tick(): "in 1 min 05 s", then "expired".
export function countdown(iso) {
  const el = h("time", { datetime: iso, "data-countdown": iso, title: iso });
  render(el);
  return el;
}

function render(el) {
  const left = Math.round((Date.parse(el.dataset.countdown) - Date.now()) / 1000);
  if (left <= 0) { el.textContent = "expired"; return; }
  const m = Math.floor(left / 60), s = left % 60;
  el.textContent = m ? `in ${m} min ${String(s).padStart(2, "0")} s` : `in ${s} s`;
}

export function tick() {
  for (const el of document.querySelectorAll("[data-countdown]")) render(el);
}

// The status line (a polite live region): what just happened, or what went wrong.
export function say(text, isError = false) {
  const s = document.getElementById("status");
  s.textContent = text || "";
  s.classList.toggle("error", !!isError);
}

export function sayError(e) {
  const field = e && e.body && e.body.error && e.body.error.field;
  say(`${e.code ? e.code + ": " : ""}${e.message}${field ? ` (${field})` : ""}`, true);
}

// A button that runs `action`, disabled while it runs, errors to the status line.
export function button(label, action, attrs = {}) {
  const b = h("button", { type: "button", ...attrs }, label);
  b.addEventListener("click", async () => {
    b.disabled = true;
    try { await action(); } catch (e) { sayError(e); } finally { b.disabled = false; }
  });
  return b;
}

// A form whose submit runs `action(values)`; values by input name.
export function form(attrs, fields, submitLabel, action) {
  const f = h("form", { class: "inline", ...attrs }, fields, h("button", { type: "submit" }, submitLabel));
  f.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const values = Object.fromEntries(new FormData(f).entries());
    const submit = f.querySelector("button[type=submit]");
    submit.disabled = true;
    try { await action(values); } catch (e) { sayError(e); } finally { submit.disabled = false; }
  });
  return f;
}

export function field(label, name, attrs = {}) {
  return h("label", null, label, h("input", { name, ...attrs }));
}

export function choice(label, name, options, selected) {
  return h("label", null, label, h("select", { name },
    options.map(([value, text]) => h("option", { value, selected: value === selected }, text))));
}

// Cursor paging: `load(after)` gives {items, next}; renders the page and Next/First buttons.
export function pager(container, load, show) {
  const go = async (after) => {
    const page = await load(after);
    container.replaceChildren(show(page.items),
      h("div", { class: "pager" },
        after !== undefined && after !== null ? button("First page", () => go(undefined)) : null,
        page.next !== null && page.next !== undefined ? button("Next page", () => go(page.next)) : null));
  };
  return go(undefined);
}
