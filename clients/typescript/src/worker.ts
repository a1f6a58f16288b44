// A worker loop for allot's job queue, over the typed client: claims that long-poll, a
// concurrency limit, heartbeats that extend a job's lease while its handler runs, completions
// sent in batches, failures with a retry delay, snoozes, the job's W3C `traceparent` passed
// on, and a graceful shutdown that finishes or hands back what runs.
//
//   const worker = new Worker(createAllotClient(url), "mail", async (job) => {
//     if (!smtpUp()) throw new Retry(5_000, "smtp down"); // a failed attempt, again in 5 s
//     if (job.payload.later) throw new Snooze(60_000);     // again in a minute, attempt given back
//     return { sent: true };                               // kept as the job's output
//   }, { concurrency: 8 });
//   process.on("SIGTERM", () => worker.stop());
//   await worker.run();
//
// What a handler returns (JSON, or undefined) is the job's output; any other throw fails the
// attempt with its message (allot retries with backoff until `max_attempts`). A job whose
// worker dies comes back after its lease: allot rescues expired leases, and the next claim
// takes the job again (its `attempt` counted).
import type createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

/** The typed client (`createAllotClient`'s), named here so that this file needs not index.ts. */
type AllotClient = ReturnType<typeof createClient<paths>>;

/** A leased job as a claim answers it. */
export type Job = components["schemas"]["LeasedJob"];

/** The most jobs one completion request carries. */
export const MAX_COMPLETION_BATCH = 100;

/** Fail this attempt and run the job again after `delayMs` (instead of the backoff). */
export class Retry extends Error {
  constructor(
    readonly delayMs: number,
    message = "retry",
  ) {
    super(message);
  }
}

/** Run the job again after `delayMs`; the attempt does not count (not a failure). */
export class Snooze extends Error {
  constructor(readonly delayMs: number) {
    super(`snooze ${delayMs} ms`);
  }
}

/** How a worker runs; every field has a default. */
export interface WorkerOptions {
  /** Most handlers running at once (10); a claim asks for what is free. */
  concurrency?: number;
  /** Each claim's lease, ms (30 000); a heartbeat every third of it extends it. */
  leaseMs?: number;
  /** How long a claim waits for work, ms (20 000; at most the server's `max_wait_ms`). */
  waitMs?: number;
  /** Completions without output go in one request of up to this many (50, at most 100)… */
  completionBatch?: number;
  /** …once that many wait or this many ms passed (50). */
  flushMs?: number;
  /** `finish` (default) lets running handlers end, within `graceMs`; `hand_back` stops them
   * and gives their jobs back at once (a snooze of 0: the attempt not counted). */
  shutdown?: "finish" | "hand_back";
  /** How long a `finish` shutdown waits for running handlers, ms (30 000). */
  graceMs?: number;
}

/** A handler: the job's output (or undefined), or a throw. `signal` aborts on a hand-back. */
export type Handler = (job: Job, signal: AbortSignal) => Promise<unknown>;

interface Running {
  job: Job;
  done: Promise<void>;
  abort: AbortController;
}

/** Runs a handler for the jobs of one queue (see the module's comment). */
export class Worker {
  private readonly opts: Required<WorkerOptions>;
  private readonly running = new Map<number, Running>();
  private done: { id: number; lease_token: string }[] = [];
  private stopping = false;
  private wake: () => void = () => {};

  constructor(
    private readonly client: AllotClient,
    private readonly queue: string,
    private readonly handler: Handler,
    options: WorkerOptions = {},
  ) {
    this.opts = {
      concurrency: 10,
      leaseMs: 30_000,
      waitMs: 20_000,
      completionBatch: 50,
      flushMs: 50,
      shutdown: "finish",
      graceMs: 30_000,
      ...options,
    };
    this.opts.completionBatch = Math.max(1, Math.min(this.opts.completionBatch, MAX_COMPLETION_BATCH));
  }

  /** Claim and run jobs until `stop()`; then shut down as `shutdown` says. */
  async run(): Promise<void> {
    const flusher = setInterval(() => void this.flush(), this.opts.flushMs);
    try {
      while (!this.stopping) {
        const free = this.opts.concurrency - this.running.size;
        if (free <= 0) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        for (const job of await this.claim(free)) {
          if (this.stopping) await this.handBack(job);
          else this.start(job);
        }
      }
    } finally {
      clearInterval(flusher);
      await this.shutDown();
      await this.flush();
    }
  }

  /** Stop claiming; `run()` then shuts down and returns (a waiting claim ends first). */
  stop(): void {
    this.stopping = true;
    this.wake();
  }

  private async claim(n: number): Promise<Job[]> {
    const body = { max: Math.min(n, 100), lease_ms: this.opts.leaseMs, wait_ms: this.opts.waitMs, worker: "typescript" };
    const { data, error } = await this.client.POST("/v1/queues/{queue}/claims", {
      params: { path: { queue: this.queue } },
      body,
    });
    if (error || !data) throw new Error(`claim on ${this.queue}: ${JSON.stringify(error)}`);
    return data.jobs;
  }

  private start(job: Job): void {
    const abort = new AbortController();
    const done = this.runOne(job, abort.signal).finally(() => {
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, { job, done, abort });
  }

  private async runOne(job: Job, signal: AbortSignal): Promise<void> {
    const beat = setInterval(() => void this.transition(job, "heartbeat", { lease_ms: this.opts.leaseMs }), this.opts.leaseMs / 3);
    try {
      const output = await this.handler(job, signal);
      if (signal.aborted) return;
      if (output === undefined || output === null) {
        this.done.push({ id: job.id, lease_token: job.lease_token });
        if (this.done.length >= this.opts.completionBatch) await this.flush();
      } else {
        await this.transition(job, "complete", { output });
      }
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof Snooze) await this.transition(job, "snooze", { delay_ms: e.delayMs });
      else if (e instanceof Retry) await this.transition(job, "fail", { error: e.message, retry_in_ms: e.delayMs });
      else await this.transition(job, "fail", { error: String(e instanceof Error ? e.message : e).slice(0, 1000) });
    } finally {
      clearInterval(beat);
    }
  }

  private async flush(): Promise<void> {
    while (this.done.length > 0) {
      const jobs = this.done.splice(0, this.opts.completionBatch);
      const { error } = await this.client.POST("/v1/queues/{queue}/completions", {
        params: { path: { queue: this.queue } },
        body: { jobs },
      });
      if (error) throw new Error(`completions on ${this.queue}: ${JSON.stringify(error)}`);
    }
  }

  private async shutDown(): Promise<void> {
    const all = [...this.running.values()];
    if (this.opts.shutdown === "finish" && all.length > 0) {
      const grace = new Promise<void>((resolve) => setTimeout(resolve, this.opts.graceMs));
      await Promise.race([Promise.all(all.map((r) => r.done)), grace]);
    }
    // What still runs is handed back: its handler aborted, its job snoozed to now.
    const left = [...this.running.values()];
    for (const r of left) r.abort.abort();
    await Promise.all(left.map((r) => this.handBack(r.job)));
  }

  private handBack(job: Job): Promise<void> {
    return this.transition(job, "snooze", { delay_ms: 0 });
  }

  /** A lease-carrying transition of `job`, with its `traceparent`; a lost lease (409: the job
   * was rescued, cancelled or taken again) voids it quietly. */
  private async transition(job: Job, verb: "complete" | "fail" | "heartbeat" | "snooze", extra: object): Promise<void> {
    // One call for the four paths: their typed signatures differ only in the body.
    const post = this.client.POST as unknown as (
      path: string,
      init: object,
    ) => Promise<{ error?: unknown; response: Response }>;
    const headers: Record<string, string> = job.traceparent ? { traceparent: job.traceparent } : {};
    const { error, response } = await post(`/v1/jobs/{id}/${verb}`, {
      params: { path: { id: job.id } },
      body: { lease_token: job.lease_token, ...extra },
      headers,
    });
    if (response.status === 409) return;
    if (error) throw new Error(`${verb} of job ${job.id}: ${response.status} ${JSON.stringify(error)}`);
  }
}
