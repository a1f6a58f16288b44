// The console is a client of the public API like any other: every call goes through here
// with the key the operator entered (kept in this tab's session storage, never in a URL or
// a cookie). No endpoint exists for the console alone.

const KEY = "allot.key";

export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || "http_" + status;
    this.body = body;
  }
}

export function key() { return sessionStorage.getItem(KEY); }
export function setKey(k) { sessionStorage.setItem(KEY, k); }
export function clearKey() { sessionStorage.removeItem(KEY); }

function headers(extra) {
  const h = { accept: "application/json", ...extra };
  const k = key();
  if (k) h.authorization = "Bearer " + k;
  return h;
}

// `path` with `query` (an object; empty and null values left out).
export function url(path, query) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

// One call: JSON in, JSON out; a non-2xx answer is thrown as an ApiError.
export async function api(path, { method = "GET", query, body, signal } = {}) {
  const init = { method, headers: headers(body === undefined ? {} : { "content-type": "application/json" }), signal };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(url(path, query), init);
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

// Consecutive failed connections before a stream gives up (the page says "offline").
const MAX_RECONNECTS = 20;
// The longest wait between two connections, ms.
const MAX_BACKOFF_MS = 10000;

// The change feed as Server-Sent Events, read with fetch (EventSource cannot send the
// key). Calls `onEvent(event)` for each event after `after`; resumes after the last cursor
// seen when the stream ends, with a bounded back-off, at most MAX_RECONNECTS failures in a
// row. Reports "live", "reconnecting", "offline" or "signed out" to `onState`. Returns a
// function that stops it.
export function follow(query, onEvent, onState) {
  const stop = new AbortController();
  let last = query.after;
  let delay = 500;
  let failures = 0;
  (async () => {
    while (!stop.signal.aborted) {
      try {
        const res = await fetch(url("/v1/events/stream", { ...query, after: last }), {
          headers: headers({ accept: "text/event-stream" }),
          signal: stop.signal,
        });
        if (!res.ok) throw new ApiError(res.status, null);
        onState && onState("live");
        delay = 500;
        failures = 0;
        await readEvents(res.body, (ev) => { last = ev.cursor; onEvent(ev); });
      } catch (e) {
        if (stop.signal.aborted) return;
        if (e.status === 401 || e.status === 403) { onState && onState("signed out"); return; }
        failures += 1;
        if (failures >= MAX_RECONNECTS) { onState && onState("offline"); return; }
        onState && onState("reconnecting");
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, MAX_BACKOFF_MS);
    }
  })();
  return () => stop.abort();
}

// Parse a text/event-stream body (WHATWG HTML, "Server-sent events"): events end at a blank
// line; `data:` lines carry the event JSON; comments (heartbeats) are skipped.
async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
      if (data) onEvent(JSON.parse(data));
    }
  }
}
