// Queues: every queue with its counts by state and its throughput, pause/resume; a queue's
// jobs of any state by cursor with filters, bulk actions by filter (counted first, then
// applied, with the audit trail), enqueue; a job with its attempts, errors, output and why
// it is not running, retry/cancel.

import { api, follow } from "../api.js";
import { h, fill, table, facts, badge, num, when, button, form, field, choice, pager, chart, say, sayError } from "../ui.js";
import { eventTable } from "./stock.js";

const STATES = ["available", "scheduled", "running", "retryable", "completed", "discarded", "cancelled"];
// Rows per page of every listing here.
const PAGE = 50;
// How often the queues page reads again, ms.
const POLL_MS = 5000;
// Queues per page of the queues page.
const QUEUES_PAGE = 200;
// Samples of a queue's counts the page keeps for its chart (one per POLL_MS: 30 minutes).
const SAMPLES = 360;
// The states that wait to run: a queue's depth.
const DEPTH = ["available", "scheduled", "retryable"];

export async function queuesPage({ main, can }) {
  const body = h("div", { id: "queues" });
  fill(main, h("h1", null, "Queues"), body);
  let previous = null;
  // Each queue's settings (for "paused"), read once per queue rather than on every poll, and
  // again after this page pauses or resumes it.
  const settings = new Map();
  const load = async () => {
    const page = await api("/v1/queues", { query: { limit: QUEUES_PAGE } });
    const unread = page.queues.filter((q) => !settings.has(q.queue));
    const read = await Promise.all(unread.map((q) => api(`/v1/queues/${encodeURIComponent(q.queue)}/settings`)));
    unread.forEach((q, i) => settings.set(q.queue, read[i]));
    const now = Date.now();
    const rate = (q) => {
      // A queue that drops its completed jobs never counts them.
      if (settings.get(q.queue)?.keep_completed === false) return "—";
      const before = previous ? previous.counts.get(q.queue) : undefined;
      if (before === undefined) return "…";
      const done = q.counts.completed - before;
      return `${((done * 60000) / (now - previous.at)).toFixed(0)}/min`;
    };
    fill(body, table(null, [
      ["Queue", (q) => h("a", { href: `#/queues/${encodeURIComponent(q.queue)}` }, q.queue)],
      ...STATES.map((s) => [s, (q) => num(q.counts[s]), { num: true }]),
      ["Completed/min", rate, { num: true }],
      ["", (q) => pauseCell(q.queue, settings.get(q.queue), can("jobs:manage"), () => { settings.delete(q.queue); return load(); })],
    ], page.queues, "No queues yet: a queue exists once a job is enqueued to it."),
    page.next ? h("p", { class: "muted" }, `The first ${QUEUES_PAGE} queues by name.`) : null);
    previous = { at: now, counts: new Map(page.queues.map((q) => [q.queue, q.counts.completed])) };
  };
  await load();
  const timer = setInterval(() => load().catch(sayError), POLL_MS);
  return () => clearInterval(timer);
}

// "paused" for every key that may read; the button only with jobs:manage.
function pauseCell(queue, settings, manage, reload) {
  const paused = settings && settings.paused;
  return h("span", null, paused ? badge("paused", "warn") : "", " ",
    manage && button(paused ? `Resume ${queue}` : `Pause ${queue}`, async () => {
      await api(`/v1/queues/${encodeURIComponent(queue)}/${paused ? "resume" : "pause"}`, { method: "POST" });
      say(`Queue ${queue} ${paused ? "resumed" : "paused"}.`);
      await reload();
    }));
}

export async function queuePage(ctx) {
  const { main, params: [queue], query, go, can } = ctx;
  const q = encodeURIComponent(queue);
  const list = h("div", { id: "jobs" });
  const countsBox = h("div", { id: "queue-counts" });
  const trend = h("div", { id: "queue-trend" });
  const samples = [];
  // The counts now, and a sample for the chart: depth (jobs waiting to run) and running, and
  // completed per minute since the sample before.
  const counts = async () => {
    const c = (await api(`/v1/queues/${q}`)).counts;
    fill(countsBox, facts(STATES.map((s) => [s, num(c[s])])));
    const at = Date.now() / 1000, last = samples[samples.length - 1];
    const perMin = last ? Math.max(0, ((c.completed - last.completed) * 60) / Math.max(at - last.at, 1)) : null;
    samples.push({ at, completed: c.completed, depth: DEPTH.reduce((a, s) => a + (c[s] || 0), 0), running: c.running, perMin });
    if (samples.length > SAMPLES) samples.shift();
    fill(trend, chart("Depth (waiting to run), running and completed per minute, since this page opened",
      samples.map((x) => x.at), [
        { label: "depth", values: samples.map((x) => x.depth) },
        { label: "running", values: samples.map((x) => x.running) },
        { label: "completed/min", values: samples.map((x) => x.perMin) },
      ], { id: "queue-chart", range: [Math.min(samples[0].at, at - 300), at] }));
  };
  const jobs = () => showJobs(list, q, query);
  await counts();
  fill(main,
    h("h1", null, "Queue ", h("code", null, queue)),
    countsBox, trend,
    h("h2", null, "Jobs"),
    form({ id: "job-filter" }, [
      choice("State", "state", [["", "Any"], ...STATES.map((s) => [s, s])], query.state || ""),
      field("Tag", "tag", { value: query.tag || "" }),
      field("Metadata (one key, JSON)", "metadata", { value: query.metadata || "", placeholder: '{"order":42}' }),
      field("Payload field (one key, JSON)", "payload", { value: query.payload || "", placeholder: '{"to":"ada@example.com"}' }),
    ], "Filter", async (v) => go(`#/queues/${q}?` + new URLSearchParams(v).toString())),
    list,
    can("jobs:manage") ? bulkSection(queue, query, async () => { await counts(); await jobs(); }) : null,
    can("jobs:enqueue") ? enqueueSection(queue, go) : null);
  await jobs();
  const timer = setInterval(() => counts().catch(sayError), POLL_MS);
  const stopAudit = can("events:read") ? await auditTrail(main, queue) : null;
  return () => { clearInterval(timer); if (stopAudit) stopAudit(); };
}

// The queue's jobs by cursor, with the page's filters.
function showJobs(list, q, query) {
  return pager(list, async (after) => {
    const p = await api(`/v1/queues/${q}/jobs`, {
      query: { state: query.state, tag: query.tag, metadata: query.metadata, payload: query.payload, after, limit: PAGE },
    });
    return { items: p.jobs, next: p.next };
  }, (jobs) => table(null, [
    ["Job", (j) => h("a", { href: `#/jobs/${j.id}` }, `#${j.id}`)],
    ["State", (j) => j.state], ["Attempt", (j) => `${j.attempt} of ${j.max_attempts}`],
    ["Tags", (j) => (j.tags || []).join(", ") || "—"], ["Enqueued", (j) => when(j.created_at)],
    ["Last error", (j) => lastError(j)],
  ], jobs, "No jobs match."));
}

function lastError(j) {
  const errs = Array.isArray(j.errors) ? j.errors : [];
  return errs.length ? String(errs[errs.length - 1].error) : "—";
}

// Bulk by filter: "Count" runs a dry run and shows how many match; "Apply" then acts on at
// most `max` of them (the server bounds a call by max_bulk_jobs) and says how many changed.
function bulkSection(queue, query, reload) {
  const result = h("p", { id: "bulk-result", role: "status" });
  let counted = null;
  const read = (f) => {
    const v = Object.fromEntries(new FormData(f).entries());
    const filter = {};
    if (v.state) filter.state = v.state;
    if (v.tag) filter.tag = v.tag;
    if (v.partition_key) filter.partition_key = v.partition_key;
    return { action: v.action, filter, max: v.max ? Number(v.max) : undefined };
  };
  const apply = button("Apply", async () => {
    // Never more than the jobs counted: ones that came to match since wait for a new count.
    const body = { ...read(f), max: counted };
    const r = await api(`/v1/queues/${encodeURIComponent(queue)}/jobs/bulk`, { method: "POST", body });
    result.textContent = `${body.action}: ${r.changed} of ${r.matched} matched jobs changed${r.more ? "; more match, apply again" : ""}.`;
    apply.hidden = true;
    await reload();
  }, { id: "bulk-apply", class: "danger", hidden: true });
  const f = form({ id: "bulk-form", "aria-label": "Bulk action by filter" }, [
    choice("Action", "action", [["retry", "Retry"], ["cancel", "Cancel"], ["delete", "Delete"]], "retry"),
    choice("State", "state", [["", "Any the action applies to"], ...STATES.map((s) => [s, s])], query.state || ""),
    field("Tag", "tag", { value: query.tag || "" }),
    field("Partition key", "partition_key"),
    field("At most", "max", { type: "number", min: 1, placeholder: "max_bulk_jobs" }),
  ], "Count matching jobs", async () => {
    const body = { ...read(f), dry_run: true };
    const r = await api(`/v1/queues/${encodeURIComponent(queue)}/jobs/bulk`, { method: "POST", body });
    counted = r.matched;
    result.textContent = `${r.matched}${r.more ? "+" : ""} jobs match (${body.action}).`;
    apply.textContent = `Apply ${body.action} to ${counted} jobs`;
    apply.hidden = counted === 0;
  });
  f.addEventListener("change", () => { apply.hidden = true; result.textContent = ""; });
  return h("section", { "aria-labelledby": "bulk-h" }, h("h2", { id: "bulk-h" }, "Bulk action by filter"), f, result, apply);
}

function enqueueSection(queue, go) {
  return h("section", { "aria-labelledby": "enqueue-h" }, h("h2", { id: "enqueue-h" }, "Enqueue a job"),
    form({ id: "enqueue-form" }, [
      h("label", null, "Payload (JSON)", h("textarea", { name: "payload", required: true }, "{}")),
      field("Tags (comma-separated)", "tags"),
      field("Max attempts", "max_attempts", { type: "number", min: 1 }),
    ], "Enqueue", async (v) => {
      let payload;
      try { payload = JSON.parse(v.payload); } catch { say("The payload is not JSON.", true); return; }
      const job = { payload };
      if (v.tags) job.tags = v.tags.split(",").map((t) => t.trim()).filter(Boolean);
      if (v.max_attempts) job.max_attempts = Number(v.max_attempts);
      const r = await api(`/v1/queues/${encodeURIComponent(queue)}/jobs`, { method: "POST", body: { jobs: [job] } });
      const id = r.ids ? r.ids[0] : r.jobs && r.jobs[0] && r.jobs[0].id;
      say(`Enqueued${id ? " job #" + id : ""}.`);
      if (id) go(`#/jobs/${id}`);
    }));
}

// The queue's `queue.bulk_applied` events, oldest first, by cursor, read again when the feed
// carries a new one (an action applied here or anywhere else shows up once the feed has it).
// Returns the function that stops following.
async function auditTrail(main, queue) {
  const list = h("div");
  main.append(h("section", { id: "audit", "aria-labelledby": "audit-h" },
    h("h2", { id: "audit-h" }, "Bulk actions on this queue (audit trail, oldest first)"), list));
  const query = { types: "queue.bulk_applied", object: queue };
  let from = 0;
  const load = () => pager(list, async (after) => {
    const p = await api("/v1/events", { query: { ...query, after: after ?? 0, limit: PAGE } });
    if (after === undefined && typeof p.next === "number") from = Math.max(from, p.next);
    return { items: p.events, next: p.events.length === PAGE ? p.next : null };
  }, (events) => table(null, [
    ["At", (e) => when(e.at)], ["Who (key id)", (e) => e.data.actor || "server without keys"],
    ["Action", (e) => e.data.action], ["Filter", (e) => h("code", null, JSON.stringify(e.data.filter))],
    ["Matched", (e) => num(e.data.matched), { num: true }], ["Changed", (e) => num(e.data.changed), { num: true }],
  ], events, "No bulk actions yet."));
  await load();
  let pending = null;
  const stop = follow({ ...query, after: from }, () => {
    clearTimeout(pending);
    pending = setTimeout(() => load().catch(sayError), 200);
  });
  return () => { clearTimeout(pending); stop(); };
}

const BLOCKED = {
  scheduled: "it is scheduled for later (run_at)",
  paused: "its queue is paused",
  fifo: "an earlier job of its partition key runs first (FIFO)",
  limit: "its queue (or partition key) is at max_running",
  rate: "its queue's rate limit is used up for this window",
};

const WAITING = ["available", "scheduled", "retryable"];

// An operator's snooze of a waiting job (`POST /v1/jobs/{id}/reschedule`): later by some
// minutes, or now.
function reschedule(ctx, j) {
  const go = async (delay_ms, what) => {
    await api(`/v1/jobs/${j.id}/reschedule`, { method: "POST", body: { delay_ms } });
    await jobPage(ctx);
    say(`Job #${j.id} ${what}.`);
  };
  const f = form({ id: "snooze-form", "aria-label": "Snooze this job" },
    [field("Snooze for (minutes)", "minutes", { type: "number", min: 1, max: 43200, value: 60, required: true })],
    "Snooze", async (v) => go(Number(v.minutes) * 60000, `snoozed for ${v.minutes} min`));
  return h("span", null, f, button("Run now", () => go(0, "will run now"), { id: "run-now" }));
}

export async function jobPage(ctx) {
  const { main, params: [id], can } = ctx;
  const j = await api(`/v1/jobs/${id}`);
  const finished = ["completed", "discarded", "cancelled"].includes(j.state);
  const errors = Array.isArray(j.errors) ? j.errors : [];
  fill(main,
    h("h1", null, "Job #", String(j.id)),
    facts([
      ["Queue", h("a", { href: `#/queues/${encodeURIComponent(j.queue)}` }, j.queue)],
      ["State", j.state === "discarded" ? badge("discarded (dead letter)", "bad") : j.state],
      ["Why not running", j.blocked_by ? BLOCKED[j.blocked_by] || j.blocked_by : "—"],
      ["Attempt", `${j.attempt} of ${j.max_attempts}`], ["Priority", j.priority],
      ["Run at", when(j.run_at)], ["Enqueued", when(j.created_at)], ["Finished", when(j.finalized_at)],
      ["Worker", j.worker || "—"], ["Lease expires", when(j.lease_expires_at)],
      ["Tags", (j.tags || []).join(", ") || "—"], ["Partition key", j.partition_key || "—"],
    ]),
    h("div", { class: "actions" },
      can("jobs:enqueue") && ["discarded", "cancelled"].includes(j.state) ? button("Retry", async () => {
        await api(`/v1/jobs/${j.id}/retry`, { method: "POST" });
        await jobPage(ctx);
        say(`Job #${j.id} is available again.`);
      }, { id: "retry-job" }) : null,
      can("jobs:manage") && WAITING.includes(j.state) ? reschedule(ctx, j) : null,
      can("jobs:enqueue") && !finished ? button("Cancel", async () => {
        await api(`/v1/jobs/${j.id}/cancel`, { method: "POST" });
        await jobPage(ctx);
        say(`Job #${j.id} cancelled.`);
      }, { id: "cancel-job", class: "danger" }) : null),
    h("h2", null, "Attempts and errors"),
    table(null, [["Attempt", (e) => e.attempt, { num: true }], ["At", (e) => when(e.at)], ["Error", (e) => h("code", null, String(e.error))]],
      errors, "No failed attempts."),
    h("h2", null, "Payload"), h("pre", null, JSON.stringify(j.payload, null, 2)),
    h("h2", null, "Metadata"), h("pre", null, JSON.stringify(j.metadata, null, 2)),
    h("h2", null, "Output"), h("pre", null, j.output === null || j.output === undefined ? "—" : JSON.stringify(j.output, null, 2)));
  if (can("events:read")) {
    const p = await api("/v1/events", { query: { object: String(j.id), types: "job.discarded", after: 0, limit: 10 } });
    if (p.events.length) main.append(h("h2", null, "Events"), eventTable(p.events));
  }
}
