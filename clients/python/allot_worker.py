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
rescues expired leases; the next claim takes the job again (its ``attempt`` counted).

The network and the server may fail: a request that fails in transit, or answers 429 or 5xx,
is sent again (``request_attempts`` in all, backing off from 100 ms to 5 s); what still fails
is logged (the ``allot_worker`` logger) and the worker goes on: a claim after a pause,
completions kept for the next flush, a lost heartbeat or finish leaving the job to come back
after its lease. Only a claim refused for what it says (a 4xx other than 429: a wrong queue
name, a lease out of bounds) ends :meth:`Worker.run`, with an :class:`AllotError`."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal
from typing import Any, Awaitable, Callable, Literal, Optional

import httpx

from allot_client import Client

log = logging.getLogger("allot_worker")

#: The most jobs one completion request carries (allot's ``max_batch_insert`` is 10 000).
MAX_COMPLETION_BATCH = 100

#: The first pause before a request is sent again, ms; it doubles up to ``BACKOFF_MAX_MS``.
BACKOFF_FIRST_MS = 100

#: The longest pause before a request is sent again, or before a failed claim is tried again, ms.
BACKOFF_MAX_MS = 5_000

#: How a worker shuts down: let running handlers finish, or hand their jobs back at once.
Shutdown = Literal["finish", "hand_back"]


def _transient(status: int) -> bool:
    """Whether an answer's status is worth asking again: too many requests, or a server fault."""
    return status == 429 or status >= 500


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
    """An answer the worker cannot go on from: ``status`` and the error body; ``transient``
    when it is a 429 or 5xx that stayed so through every attempt."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body
        self.transient = _transient(status)


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
    - ``request_attempts``: how many times one request is sent before its failure is logged.
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
        shutdown: Shutdown = "finish",
        grace_ms: int = 30_000,
        request_attempts: int = 4,
    ) -> None:
        if shutdown not in ("finish", "hand_back"):
            raise ValueError("shutdown is 'finish' or 'hand_back'")
        self.queue, self.handler = queue, handler
        self.concurrency, self.lease_ms, self.wait_ms = concurrency, lease_ms, wait_ms
        self.completion_batch = max(1, min(completion_batch, MAX_COMPLETION_BATCH))
        self.flush_ms, self.shutdown_mode, self.grace_ms = flush_ms, shutdown, grace_ms
        self.request_attempts = max(1, request_attempts)
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
        """Up to ``n`` jobs; none after a failure it goes on from (logged, then a pause)."""
        body = {"max": min(n, 100), "lease_ms": self.lease_ms, "wait_ms": self.wait_ms, "worker": "python"}
        try:
            answer = await self._post(f"/v1/queues/{self.queue}/claims", body)
        except (httpx.TransportError, AllotError) as e:
            if isinstance(e, AllotError) and not e.transient:
                raise
            log.warning("claim on %s failed: %s", self.queue, e)
            await asyncio.sleep(BACKOFF_MAX_MS / 1000)
            return []
        return [Job(**{f.name: j.get(f.name) for f in dataclasses.fields(Job)}) for j in answer["jobs"]]

    async def _run_one(self, job: Job) -> None:
        beat = asyncio.create_task(self._heartbeat(job))
        try:
            try:
                output = await self.handler(job)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 (any failure of a handler fails its attempt)
                beat.cancel()
                await self._failed(job, e)
                return
            beat.cancel()
            if output is None:
                self._done.append((job.id, job.lease_token))
                if len(self._done) >= self.completion_batch:
                    await self._flush()
            else:
                await self._post(f"/v1/jobs/{job.id}/complete", {"lease_token": job.lease_token, "output": output}, job)
        except (httpx.TransportError, AllotError) as e:
            log.warning("job %d: its finish failed (it comes back after its lease): %s", job.id, e)
        finally:
            beat.cancel()
            self._running.pop(job.id, None)

    async def _failed(self, job: Job, e: Exception) -> None:
        """Tell allot how the handler of ``job`` failed: a snooze, a retry, or any other."""
        if isinstance(e, Snooze):
            await self._post(f"/v1/jobs/{job.id}/snooze", {"lease_token": job.lease_token, "delay_ms": e.delay_ms}, job)
        elif isinstance(e, Retry):
            await self._fail(job, e.error, e.delay_ms)
        else:
            await self._fail(job, f"{type(e).__name__}: {e}", None)

    async def _fail(self, job: Job, error: str, retry_in_ms: Optional[int]) -> None:
        body: dict[str, Any] = {"lease_token": job.lease_token, "error": error[:1000]}
        if retry_in_ms is not None:
            body["retry_in_ms"] = retry_in_ms
        await self._post(f"/v1/jobs/{job.id}/fail", body, job)

    async def _heartbeat(self, job: Job) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            try:
                body = {"lease_token": job.lease_token, "lease_ms": self.lease_ms}
                await self._post(f"/v1/jobs/{job.id}/heartbeat", body, job)
            except (httpx.TransportError, AllotError) as e:
                log.warning("job %d: a heartbeat failed (the next one tries again): %s", job.id, e)

    # -- completions, shutdown, HTTP ----------------------------------------------------------

    async def _flush_loop(self) -> None:
        while True:
            await asyncio.sleep(self.flush_ms / 1000)
            await self._flush()

    async def _flush(self) -> None:
        """Send the waiting completions; a batch that fails goes back to the front, for the
        next flush, and is logged."""
        while self._done:
            batch, self._done = self._done[: self.completion_batch], self._done[self.completion_batch :]
            jobs = [{"id": i, "lease_token": t} for i, t in batch]
            try:
                await self._post(f"/v1/queues/{self.queue}/completions", {"jobs": jobs})
            except (httpx.TransportError, AllotError) as e:
                self._done = batch + self._done
                log.warning("completions on %s failed (kept for the next flush): %s", self.queue, e)
                return

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
        """Give `job` back to the queue now, its attempt not counted (a snooze of 0 ms); a
        failure is logged (the job then comes back after its lease)."""
        try:
            await self._post(f"/v1/jobs/{job.id}/snooze", {"lease_token": job.lease_token, "delay_ms": 0}, job)
        except (httpx.TransportError, AllotError) as e:
            log.warning("job %d: its hand-back failed (it comes back after its lease): %s", job.id, e)

    async def _post(self, path: str, body: dict, job: Optional[Job] = None) -> Any:
        """POST ``body`` to ``path`` (with the job's ``traceparent``), sent again while it fails
        in transit or answers 429 or 5xx, up to ``request_attempts`` times. Raises the last
        transit failure, or :class:`AllotError` for an answer of 300 or more (a 409 of a job's
        lease is its loss: ``None``)."""
        headers = {"traceparent": job.traceparent} if job is not None and job.traceparent else {}
        for attempt in range(1, self.request_attempts + 1):
            try:
                answer = await self._http.post(path, json=body, headers=headers)
                if not _transient(answer.status_code) or attempt == self.request_attempts:
                    break
            except httpx.TransportError:
                if attempt == self.request_attempts:
                    raise
            await asyncio.sleep(min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (attempt - 1)) / 1000)
        if answer.status_code == 409 and job is not None:
            return None  # the lease was lost (rescued, cancelled): this attempt's word is void
        if answer.status_code >= 300:
            raise AllotError(answer.status_code, answer.text)
        return answer.json() if answer.content else None
