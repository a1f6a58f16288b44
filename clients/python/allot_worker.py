"""A worker loop for allot's job queue, over the generated client's HTTP connection: claims
that long-poll, a concurrency limit, heartbeats that extend a job's lease while its handler
runs, completions sent in batches, failures with a retry delay, snoozes, the job's W3C
``traceparent`` passed on, and a graceful shutdown that finishes or hands back what runs.

    from allot_client import Client
    from allot_worker import Worker, Retry, Snooze

    async def send_mail(job):
        if job.payload.get("later"):
            raise Snooze(60_000)          # again in a minute, the attempt given back
        if not smtp_up():
            raise Retry(5_000, "smtp down")  # a failed attempt, retried in 5 s
        return {"sent": True}             # kept as the job's output

    worker = Worker(Client(base_url="http://127.0.0.1:8080"), "mail", send_mail, concurrency=8)
    await worker.run()                    # until worker.stop() (or SIGTERM with install_signals)

A handler is an ``async`` function of a :class:`Job`; what it returns (JSON, or None) is the
job's output. Any other exception fails the attempt with its text (allot retries with
backoff until ``max_attempts``). A job whose worker dies comes back after its lease: allot
rescues expired leases; the next claim takes the job again (its ``attempt`` counted)."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
from typing import Any, Awaitable, Callable, Optional

from allot_client import Client

#: The most jobs one completion request carries (allot's ``max_batch_insert`` is 10 000).
MAX_COMPLETION_BATCH = 100


class Retry(Exception):
    """Fail this attempt and run the job again after ``delay_ms`` (instead of the backoff)."""

    def __init__(self, delay_ms: int, error: str = "retry") -> None:
        super().__init__(error)
        self.delay_ms = delay_ms
        self.error = error


class Snooze(Exception):
    """Run the job again after ``delay_ms``; the attempt does not count (not a failure)."""

    def __init__(self, delay_ms: int) -> None:
        super().__init__(f"snooze {delay_ms} ms")
        self.delay_ms = delay_ms


@dataclasses.dataclass
class Job:
    """A leased job: ``id``, ``payload``, ``attempt`` (1 for the first), ``max_attempts``,
    ``priority``, ``lease_token`` and ``traceparent`` (the enqueuing trace, or None)."""

    id: int
    payload: Any
    attempt: int
    max_attempts: int
    priority: int
    lease_token: str
    traceparent: Optional[str]


class AllotError(Exception):
    """An answer the worker cannot go on from: ``status`` and the error body."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body


Handler = Callable[[Job], Awaitable[Any]]


class Worker:
    """Runs ``handler`` for the jobs of ``queue`` (see the module's docs).

    - ``concurrency``: most handlers running at once; a claim asks for what is free.
    - ``lease_ms``: each claim's lease; a heartbeat every ``lease_ms / 3`` extends it.
    - ``wait_ms``: how long a claim waits for work (allot's long-poll; at most its
      ``max_wait_ms``).
    - ``completion_batch`` and ``flush_ms``: completions without output go in one request of
      up to ``completion_batch`` once that many wait or ``flush_ms`` passed.
    - ``shutdown``: ``"finish"`` lets running handlers end (within ``grace_ms``) or
      ``"hand_back"`` cancels them and snoozes their jobs to now (the attempt given back).
    """

    def __init__(
        self,
        client: Client,
        queue: str,
        handler: Handler,
        *,
        concurrency: int = 10,
        lease_ms: int = 30_000,
        wait_ms: int = 20_000,
        completion_batch: int = 50,
        flush_ms: int = 50,
        shutdown: str = "finish",
        grace_ms: int = 30_000,
    ) -> None:
        if shutdown not in ("finish", "hand_back"):
            raise ValueError("shutdown is 'finish' or 'hand_back'")
        self.queue, self.handler = queue, handler
        self.concurrency, self.lease_ms, self.wait_ms = concurrency, lease_ms, wait_ms
        self.completion_batch = max(1, min(completion_batch, MAX_COMPLETION_BATCH))
        self.flush_ms, self.shutdown_mode, self.grace_ms = flush_ms, shutdown, grace_ms
        self._http = client.get_async_httpx_client()
        self._stopping = asyncio.Event()
        self._running: dict[int, tuple[Job, asyncio.Task]] = {}
        self._done: list[tuple[int, str]] = []

    # -- the loop ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Claim and run jobs until :meth:`stop`; then shut down as ``shutdown`` says."""
        flusher = asyncio.create_task(self._flush_loop())
        stopped = asyncio.create_task(self._stopping.wait())
        try:
            while not self._stopping.is_set():
                free = self.concurrency - len(self._running)
                if free <= 0:
                    tasks = [t for _, t in self._running.values()]
                    await asyncio.wait([*tasks, stopped], return_when=asyncio.FIRST_COMPLETED)
                    continue
                jobs = await self._claim(free)
                for job in jobs:
                    if self._stopping.is_set():
                        await self._hand_back(job)  # claimed as the stop came: not started
                        continue
                    self._running[job.id] = (job, asyncio.create_task(self._run_one(job)))
        finally:
            stopped.cancel()
            await self._shut_down()
            flusher.cancel()
            await self._flush()

    def stop(self) -> None:
        """Stop claiming; :meth:`run` then shuts down and returns (a claim waiting for work
        ends first, within ``wait_ms``)."""
        self._stopping.set()

    def install_signals(self) -> None:
        """Stop on SIGTERM and SIGINT (the loop running in this thread's event loop)."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)

    async def _claim(self, n: int) -> list[Job]:
        body = {"max": min(n, 100), "lease_ms": self.lease_ms, "wait_ms": self.wait_ms, "worker": "python"}
        answer = await self._post(f"/v1/queues/{self.queue}/claims", body)
        return [Job(**{f.name: j.get(f.name) for f in dataclasses.fields(Job)}) for j in answer["jobs"]]

    async def _run_one(self, job: Job) -> None:
        beat = asyncio.create_task(self._heartbeat(job))
        try:
            output = await self.handler(job)
            if output is None:
                self._done.append((job.id, job.lease_token))
                if len(self._done) >= self.completion_batch:
                    await self._flush()
            else:
                await self._post(f"/v1/jobs/{job.id}/complete", {"lease_token": job.lease_token, "output": output}, job)
        except asyncio.CancelledError:
            raise
        except Snooze as s:
            await self._post(f"/v1/jobs/{job.id}/snooze", {"lease_token": job.lease_token, "delay_ms": s.delay_ms}, job)
        except Retry as r:
            await self._fail(job, r.error, r.delay_ms)
        except Exception as e:  # noqa: BLE001 (any failure of a handler fails its attempt)
            await self._fail(job, f"{type(e).__name__}: {e}", None)
        finally:
            beat.cancel()
            self._running.pop(job.id, None)

    async def _fail(self, job: Job, error: str, retry_in_ms: Optional[int]) -> None:
        body: dict[str, Any] = {"lease_token": job.lease_token, "error": error[:1000]}
        if retry_in_ms is not None:
            body["retry_in_ms"] = retry_in_ms
        await self._post(f"/v1/jobs/{job.id}/fail", body, job)

    async def _heartbeat(self, job: Job) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            await self._post(f"/v1/jobs/{job.id}/heartbeat", {"lease_token": job.lease_token, "lease_ms": self.lease_ms}, job)

    # -- completions, shutdown, HTTP ----------------------------------------------------------

    async def _flush_loop(self) -> None:
        while True:
            await asyncio.sleep(self.flush_ms / 1000)
            await self._flush()

    async def _flush(self) -> None:
        while self._done:
            batch, self._done = self._done[: self.completion_batch], self._done[self.completion_batch :]
            jobs = [{"id": i, "lease_token": t} for i, t in batch]
            await self._post(f"/v1/queues/{self.queue}/completions", {"jobs": jobs})

    async def _shut_down(self) -> None:
        running = [t for _, t in self._running.values()]
        if self.shutdown_mode == "finish" and running:
            await asyncio.wait(running, timeout=self.grace_ms / 1000)
        # What still runs is handed back: its handler cancelled, its job snoozed to now.
        left = list(self._running.values())
        for _, task in left:
            task.cancel()
        await asyncio.gather(*(t for _, t in left), return_exceptions=True)
        for job, _ in left:
            await self._hand_back(job)

    async def _hand_back(self, job: Job) -> None:
        """Give `job` back to the queue now, its attempt not counted (a snooze of 0 ms)."""
        await self._post(f"/v1/jobs/{job.id}/snooze", {"lease_token": job.lease_token, "delay_ms": 0}, job)

    async def _post(self, path: str, body: dict, job: Optional[Job] = None) -> Any:
        headers = {"traceparent": job.traceparent} if job is not None and job.traceparent else {}
        answer = await self._http.post(path, json=body, headers=headers)
        if answer.status_code == 409 and job is not None:
            return None  # the lease was lost (rescued, cancelled): this attempt's word is void
        if answer.status_code >= 300:
            raise AllotError(answer.status_code, answer.text)
        return answer.json() if answer.content else None
