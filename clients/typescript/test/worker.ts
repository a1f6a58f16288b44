// The TypeScript worker against a live `allot serve` (ALLOT_URL): every job runs to
// completion under a concurrency limit, with failures retried, a snooze and outputs; a job
// whose handler outlives its lease keeps it by heartbeats; a worker killed with SIGKILL while
// it holds jobs loses them only until their lease ends, when another worker takes them again;
// a graceful shutdown hands running jobs back with their attempt given back, or lets them
// finish with their completions sent before their leases end; a network that drops requests
// (before they are sent, and after the server answered) costs retries, not the worker.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import createClient from "openapi-fetch";
import { createAllotClient, Retry, Snooze, Worker, type Job } from "../src/index.js";
import type { paths } from "../src/schema.js";

const url = process.env.ALLOT_URL ?? "http://127.0.0.1:8080";
const client = createAllotClient(url);
const LEASE_MS = 1500;

async function counts(queue: string): Promise<Record<string, number>> {
  const { data } = await client.GET("/v1/queues/{queue}", { params: { path: { queue } } });
  return data!.counts as Record<string, number>;
}

async function job(id: number) {
  const { data } = await client.GET("/v1/jobs/{id}", { params: { path: { id } } });
  return data!;
}

async function enqueue(queue: string, payloads: object[]): Promise<number[]> {
  const { data, error } = await client.POST("/v1/queues/{queue}/jobs", {
    params: { path: { queue } },
    body: { jobs: payloads.map((payload) => ({ payload })) },
  });
  assert.ok(data, JSON.stringify(error));
  return data.ids;
}

async function until(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function handler(j: Job, signal: AbortSignal): Promise<unknown> {
  const p = j.payload as { n: number; fail_once?: boolean; snooze?: boolean; output?: boolean; slow_ms?: number };
  if (p.snooze && j.attempt === 1) throw new Snooze(0);
  if (p.fail_once && j.attempt === 1) throw new Retry(0, "first try fails");
  if (p.slow_ms) await new Promise((r) => { const t = setTimeout(r, p.slow_ms); signal.addEventListener("abort", () => { clearTimeout(t); r(undefined); }); });
  return p.output ? { n: p.n } : undefined;
}

// A worker in a child process that prints each job it takes, then hangs on it.
if (process.argv[2] === "doomed") {
  const w = new Worker(createAllotClient(url), "tsw", async (j) => {
    console.log(j.id);
    await new Promise(() => {});
  }, { concurrency: 5, leaseMs: LEASE_MS, waitMs: 500 });
  await w.run();
  process.exit(0);
}

const payloads = Array.from({ length: 30 }, (_, n) => ({ n, fail_once: n % 7 === 0, snooze: n === 3, output: n % 2 === 0 }));
const ids = await enqueue("tsw", payloads);
const doomed = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "doomed"], {
  env: process.env,
  stdio: ["ignore", "pipe", "inherit"],
});
const held: number[] = [];
for await (const line of createInterface({ input: doomed.stdout! })) {
  held.push(Number(line));
  if (held.length === 5) break;
}
doomed.kill("SIGKILL");
assert.equal((await counts("tsw")).running, 5);
const worker = new Worker(client, "tsw", handler, { concurrency: 4, leaseMs: LEASE_MS, waitMs: 500 });
const run = worker.run();
await until(async () => (await counts("tsw")).completed === 30, "every job completed");
worker.stop();
await run;
for (const id of held) assert.ok((await job(id)).attempt >= 2, `job ${id} came back after its lease`);
for (const [n, id] of ids.entries()) {
  const j = await job(id);
  if (n % 7 === 0 && !held.includes(id)) assert.equal((j.errors as { error: string }[])[0].error, "first try fails");
  if (n % 2 === 0) assert.deepEqual(j.output, { n });
}
console.log("typescript worker: 30 jobs, 5 of a killed worker back after its lease");

const [slow] = await enqueue("tsslow", [{ n: 0, slow_ms: LEASE_MS * 3 }]);
const w2 = new Worker(client, "tsslow", handler, { leaseMs: LEASE_MS, waitMs: 500 });
const run2 = w2.run();
await until(async () => (await job(slow)).state === "completed", "the slow job completed");
w2.stop();
await run2;
assert.equal((await job(slow)).attempt, 1, "a heartbeat kept the lease");
console.log("typescript worker: a job three leases long kept its lease");

const back = await enqueue("tsback", [0, 1, 2].map((n) => ({ n, slow_ms: 60_000 })));
const w3 = new Worker(client, "tsback", handler, { leaseMs: 30_000, waitMs: 500, shutdown: "hand_back" });
const run3 = w3.run();
await until(async () => (await counts("tsback")).running === 3, "three running");
w3.stop();
await run3;
for (const id of back) {
  const j = await job(id);
  assert.ok(["available", "scheduled"].includes(j.state) && j.attempt === 0, JSON.stringify(j));
}
console.log("typescript worker: a shutdown handed 3 running jobs back");

// A finishing shutdown: three quick handlers end while a slow one (three leases long) still
// runs; their completions go out as they end, not after the slow one, when their leases
// would have ended (the lease sweeper runs every second).
const fin = await enqueue("tsfinish", [0, 1, 2, 3].map((n) => ({ n, slow_ms: n === 3 ? LEASE_MS * 3 : 1000 })));
const w5 = new Worker(client, "tsfinish", handler, { leaseMs: LEASE_MS, waitMs: 500 });
const run5 = w5.run();
await until(async () => (await counts("tsfinish")).available === 0, "four claimed");
w5.stop();
await run5;
for (const id of fin) {
  const j = await job(id);
  assert.ok(j.state === "completed" && j.attempt === 1, JSON.stringify(j));
}
console.log("typescript worker: a finishing shutdown completed 4 jobs in their first attempt");

// A network that fails every 4th request before it is sent and loses every 7th answer.
let calls = 0;
const reported: unknown[] = [];
const flaky = createClient<paths>({
  baseUrl: url,
  fetch: async (request: Request) => {
    calls += 1;
    if (calls % 4 === 0) throw new TypeError("injected: connection reset before sending");
    const answer = await fetch(request);
    if (calls % 7 === 0) throw new TypeError("injected: connection reset after the answer");
    return answer;
  },
});
const shaky = await enqueue("tsflaky", Array.from({ length: 20 }, (_, n) => ({ n, output: n % 2 === 0, slow_ms: n % 5 === 0 ? LEASE_MS : 0 })));
const w4 = new Worker(flaky, "tsflaky", handler, { concurrency: 4, leaseMs: LEASE_MS, waitMs: 500, onError: (e) => reported.push(e) });
const run4 = w4.run();
await until(async () => (await counts("tsflaky")).completed === 20, "every job completed over a flaky network");
w4.stop();
await run4;
for (const [n, id] of shaky.entries()) if (n % 2 === 0) assert.deepEqual((await job(id)).output, { n });
assert.ok(calls >= 28, `${calls} requests`);
console.log(`typescript worker: 20 jobs over a network that dropped ${Math.floor(calls / 4) + Math.floor(calls / 7)} of ${calls} requests (${reported.length} reported)`);
process.exit(0);
