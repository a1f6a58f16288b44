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
//
// The network and the server may fail: a request that fails in transit, or answers 429 or
// 5xx, is sent again (`requestAttempts` in all, backing off from 100 ms to 5 s); what still
// fails goes to `onError` and the worker goes on — a claim after a pause, completions kept
// for the next flush, a lost heartbeat or finish leaving the job to come back after its
// lease. Only a claim refused for what it says (a 4xx other than 429: a wrong queue name, a
// lease out of bounds) ends `run()`, with that error.
import type createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

/** The typed client (`createAllotClient`'s), named here so that this file needs not index.ts. */
type AllotClient = ReturnType<typeof createClient<paths>>;

/** A leased job as a claim answers it. */
export type Job = components["schemas"]["LeasedJob"];

/** The most jobs one completion request carries. */
export const MAX_COMPLETION_BATCH = 100;

/** The first pause before a request is sent again, ms; it doubles up to `BACKOFF_MAX_MS`. */
export const BACKOFF_FIRST_MS = 100;

/** The longest pause before a request is sent again, or before a failed claim is tried again, ms. */
export const BACKOFF_MAX_MS = 5_000;

/** Whether an answer's status is worth asking again: too many requests, or a server fault. */
function transient(status: number): boolean {
  return status === 429 || status >= 500;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An answer as openapi-fetch gives it, whatever the path. */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

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
  /** How many times one request is sent before its failure is reported (4). */
  requestAttempts?: number;
  /** Where failures the worker goes on from are reported (`console.error`). */
  onError?: (error: unknown) => void;
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
  private flushing: Promise<void> | null = null;
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
      requestAttempts: 4,
      onError: (e) => console.error("allot worker:", e),
      ...options,
    };
    this.opts.requestAttempts = Math.max(1, this.opts.requestAttempts);
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
          if (this.stopping) await this.handBack(job).catch(this.opts.onError);
          else this.start(job);
        }
      }
    } finally {
      // The flusher runs on while handlers finish, so that their completions go out before
      // their leases end; one last flush then sends what is left.
      await this.shutDown();
      clearInterval(flusher);
      await this.flush();
      if (this.done.length > 0) await this.flush();
    }
  }

  /** Stop claiming; `run()` then shuts down and returns (a waiting claim ends first). */
  stop(): void {
    this.stopping = true;
    this.wake();
  }

  /** Up to `n` jobs; none after a failure it goes on from (reported, then a pause). */
  private async claim(n: number): Promise<Job[]> {
    const body = { max: Math.min(n, 100), lease_ms: this.opts.leaseMs, wait_ms: this.opts.waitMs, worker: "typescript" };
    let answer: Answer;
    try {
      answer = await this.post("/v1/queues/{queue}/claims", { params: { path: { queue: this.queue } }, body });
    } catch (e) {
      this.opts.onError(e);
      await sleep(BACKOFF_MAX_MS);
      return [];
    }
    const { data, error, response } = answer;
    if (error || !data) {
      const failure = new Error(`claim on ${this.queue}: ${response.status} ${JSON.stringify(error)}`);
      if (!transient(response.status)) throw failure;
      this.opts.onError(failure);
      await sleep(BACKOFF_MAX_MS);
      return [];
    }
    return (data as { jobs: Job[] }).jobs;
  }

  /** POST `path`, sent again while it fails in transit or answers 429 or 5xx, up to
   * `requestAttempts` times; the last answer, or the last transit failure thrown. */
  private async post(path: string, init: object): Promise<Answer> {
    const raw = this.client.POST as unknown as (path: string, init: object) => Promise<Answer>;
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await raw(path, init);
        if (!transient(answer.response.status) || attempt >= this.opts.requestAttempts) return answer;
      } catch (e) {
        if (attempt >= this.opts.requestAttempts) throw e;
      }
      await sleep(Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (attempt - 1)));
    }
  }

  private start(job: Job): void {
    const abort = new AbortController();
    const done = this.runOne(job, abort.signal).catch(this.opts.onError).finally(() => {
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, { job, done, abort });
  }

  private async runOne(job: Job, signal: AbortSignal): Promise<void> {
    const heartbeat = () => this.transition(job, "heartbeat", { lease_ms: this.opts.leaseMs }).catch(this.opts.onError);
    const beat = setInterval(heartbeat, this.opts.leaseMs / 3);
    let outcome: () => Promise<void>;
    try {
      const output = await this.handler(job, signal);
      if (output === undefined || output === null) {
        outcome = async () => {
          this.done.push({ id: job.id, lease_token: job.lease_token });
          if (this.done.length >= this.opts.completionBatch) await this.flush();
        };
      } else {
        outcome = () => this.transition(job, "complete", { output });
      }
    } catch (e) {
      if (e instanceof Snooze) outcome = () => this.transition(job, "snooze", { delay_ms: e.delayMs });
      else if (e instanceof Retry) outcome = () => this.transition(job, "fail", { error: e.message, retry_in_ms: e.delayMs });
      else outcome = () => this.transition(job, "fail", { error: String(e instanceof Error ? e.message : e).slice(0, 1000) });
    } finally {
      clearInterval(beat);
    }
    // A handed-back job's word is the hand-back's; a finish that fails is reported, and the
    // job comes back after its lease.
    if (!signal.aborted) await outcome().catch(this.opts.onError);
  }

  /** Send the waiting completions (one flush at a time: a second call shares the first's);
   * a batch that fails goes back to the front, for the next flush, and is reported. */
  private flush(): Promise<void> {
    this.flushing ??= this.flushAll().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async flushAll(): Promise<void> {
    while (this.done.length > 0) {
      const jobs = this.done.splice(0, this.opts.completionBatch);
      try {
        const { error, response } = await this.post("/v1/queues/{queue}/completions", {
          params: { path: { queue: this.queue } },
          body: { jobs },
        });
        if (error) throw new Error(`completions on ${this.queue}: ${response.status} ${JSON.stringify(error)}`);
      } catch (e) {
        this.done.unshift(...jobs);
        this.opts.onError(e);
        return;
      }
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
    await Promise.all(left.map((r) => this.handBack(r.job).catch(this.opts.onError)));
  }

  private handBack(job: Job): Promise<void> {
    return this.transition(job, "snooze", { delay_ms: 0 });
  }

  /** A lease-carrying transition of `job`, with its `traceparent`; a lost lease (409: the job
   * was rescued, cancelled or taken again) voids it quietly. */
  private async transition(job: Job, verb: "complete" | "fail" | "heartbeat" | "snooze", extra: object): Promise<void> {
    // One call for the four paths: their typed signatures differ only in the body.
    const headers: Record<string, string> = job.traceparent ? { traceparent: job.traceparent } : {};
    const { error, response } = await this.post(`/v1/jobs/{id}/${verb}`, {
      params: { path: { id: job.id } },
      body: { lease_token: job.lease_token, ...extra },
      headers,
    });
    if (response.status === 409) return;
    if (error) throw new Error(`${verb} of job ${job.id}: ${response.status} ${JSON.stringify(error)}`);
  }
}
