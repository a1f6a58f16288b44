// graphile-worker (pinned in package.json) as the job queue's peer: N no-op jobs end to end,
// on the database at DATABASE_URL, printed as one JSON line.
//   MODE=both  (default) the worker runs while the jobs are enqueued, as `allot bench queue` does
//   MODE=after all jobs are enqueued first, then the worker processes them
// Enqueued with addJobs in batches of BATCH (1000); the worker uses the batching options of
// graphile-worker's own performance page (local queue of 500, batched completions), with
// CONCURRENCY (24) jobs at once and a pool of CONCURRENCY + 1 connections.
import { Logger, makeWorkerUtils, run } from "graphile-worker";

const url = process.env.DATABASE_URL;
const jobs = Number(process.env.JOBS ?? 50000);
const batch = Number(process.env.BATCH ?? 1000);
const concurrency = Number(process.env.CONCURRENCY ?? 24);
const localQueue = Number(process.env.LOCAL_QUEUE ?? 500);
const mode = process.env.MODE ?? "both";
if (!url) throw new Error("DATABASE_URL is required");

// No per-job log lines: allot's side logs none either.
const logger = new Logger(() => () => {});
const utils = await makeWorkerUtils({ connectionString: url, logger });
await utils.migrate();

let done = 0;
let finished;
const allDone = new Promise((resolve) => (finished = resolve));
const taskList = {
  noop: async () => {
    done += 1;
    if (done === jobs) finished();
  },
};
const preset = {
  worker: {
    connectionString: url,
    concurrentJobs: concurrency,
    maxPoolSize: concurrency + 1,
    pollInterval: 1000,
    localQueue: { size: localQueue },
    completeJobBatchDelay: 0,
    failJobBatchDelay: 0,
  },
};
const startWorker = () => run({ noHandleSignals: true, taskList, preset, logger });

const enqueue = async () => {
  for (let from = 0; from < jobs; from += batch) {
    const specs = [];
    for (let i = from; i < Math.min(jobs, from + batch); i++) specs.push({ identifier: "noop", payload: { i } });
    await utils.addJobs(specs);
  }
};

const t0 = performance.now();
let runner;
let enqueuedAt;
if (mode === "after") {
  await enqueue();
  enqueuedAt = performance.now();
  runner = await startWorker();
} else {
  runner = await startWorker();
  await enqueue();
  enqueuedAt = performance.now();
}
await allDone;
const t1 = performance.now();
await runner.stop();
await utils.release();
const total_s = (t1 - t0) / 1000;
console.log(JSON.stringify({ peer: "graphile-worker", mode, jobs, concurrency, enqueue_s: (enqueuedAt - t0) / 1000, total_s, completed_per_s: jobs / total_s }));
