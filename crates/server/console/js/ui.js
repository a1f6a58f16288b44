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

// `el`'s children replaced by `children`, leaving out `null`/`false`/`undefined` (which
// replaceChildren would show as the text "null").
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
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

// A chart drawn by uPlot (vendor/uplot, embedded; loaded as a classic script before the
// app): `x` as seconds since the epoch (time) or plain numbers, `series` as [{label,
// values}], in a <figure> with `caption` and a text summary for screen readers. `bars` draws
// bars instead of lines, `stepped` steps (a level that holds until the next change); `range`
// fixes the x axis to [min, max]. The chart is as wide as its container when it is drawn.
export function chart(caption, x, series, { bars = false, stepped = false, time = true, range, id } = {}) {
  const fig = h("figure", { class: "chart", id, "data-points": x.length },
    h("figcaption", null, caption));
  const summary = series.map((s) => `${s.label}: ${s.values.length ? num(s.values[s.values.length - 1]) : "—"}`).join("; ");
  fig.setAttribute("aria-label", `${caption}. Latest: ${summary}`);
  if (!x.length || typeof uPlot === "undefined") {
    fig.append(h("p", { class: "muted" }, x.length ? "The chart library did not load." : "Nothing to draw yet."));
    return fig;
  }
  const colors = ["#1f6feb", "#2da44e", "#bf8700", "#cf222e"];
  const path = bars ? uPlot.paths.bars({ size: [0.8, 40] }) : stepped ? uPlot.paths.stepped({ align: 1 }) : undefined;
  const opts = {
    width: 640, height: 220, scales: { x: range ? { time, range: () => range } : { time } },
    series: [{}, ...series.map((s, i) => ({
      label: s.label, stroke: colors[i % colors.length], width: 2,
      fill: bars ? colors[i % colors.length] + "55" : undefined,
      paths: path,
      points: { show: x.length < 60 },
    }))],
  };
  const plot = new uPlot(opts, [x, ...series.map((s) => s.values)], fig);
  // Fit the container once it is in the page.
  requestAnimationFrame(() => {
    const w = fig.clientWidth;
    if (w > 100) plot.setSize({ width: Math.min(w, 960), height: 220 });
  });
  return fig;
}
