"""The Python worker (allot_worker) against a live `allot serve` (ALLOT_URL): every job runs
to completion under a concurrency limit, with failures retried and a snooze; a job whose
handler outlives its lease keeps it by heartbeats; a worker killed with SIGKILL while it
holds jobs loses them only until their lease ends, when another worker takes them again;
a graceful shutdown hands running jobs back with their attempt given back, or lets them
finish; a network that drops requests (before they are sent, and after the server answered)
costs retries, not the worker."""

import asyncio
import os
import signal
import subprocess
import sys
import time

import httpx

from allot_client import Client
from allot_worker import Retry, Snooze, Worker

URL = os.environ["ALLOT_URL"]
LEASE_MS = 1500


def counts(queue: str) -> dict:
    return httpx.get(f"{URL}/v1/queues/{queue}").json()["counts"]


def job(job_id: int) -> dict:
    return httpx.get(f"{URL}/v1/jobs/{job_id}").json()


def enqueue(queue: str, payloads: list) -> list:
    answer = httpx.post(f"{URL}/v1/queues/{queue}/jobs", json={"jobs": [{"payload": p} for p in payloads]})
    assert answer.status_code == 201, answer.text
    return answer.json()["ids"]


async def until(check, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def handler(j) -> object:
    p = j.payload
    if p.get("snooze") and j.attempt == 1:
        raise Snooze(0)
    if p.get("fail_once") and j.attempt == 1:
        raise Retry(0, "first try fails")
    if p.get("slow_ms"):
        await asyncio.sleep(p["slow_ms"] / 1000)
    return {"n": p["n"]} if p.get("output") else None


DOOMED = """
import asyncio, sys
from allot_client import Client
from allot_worker import Worker
async def hang(job):
    print(job.id, flush=True)
    await asyncio.sleep(3600)
asyncio.run(Worker(Client(base_url=sys.argv[1]), "pyw", hang, concurrency=5, lease_ms=%d, wait_ms=500).run())
""" % LEASE_MS


async def killed_worker_and_the_rest() -> None:
    ids = enqueue("pyw", [{"n": i, "fail_once": i % 7 == 0, "snooze": i == 3, "output": i % 2 == 0} for i in range(30)])
    doomed = subprocess.Popen([sys.executable, "-c", DOOMED, URL], stdout=subprocess.PIPE, text=True)
    held = [int(doomed.stdout.readline()) for _ in range(5)]
    doomed.send_signal(signal.SIGKILL)
    doomed.wait()
    assert counts("pyw")["running"] == 5, counts("pyw")
    worker = Worker(Client(base_url=URL), "pyw", handler, concurrency=4, lease_ms=LEASE_MS, wait_ms=500)
    run = asyncio.create_task(worker.run())
    await until(lambda: counts("pyw")["completed"] == 30, "every job completed")
    worker.stop()
    await asyncio.wait_for(run, 10)
    for i in held:
        assert job(i)["attempt"] >= 2, f"job {i} came back after its lease: {job(i)}"
    for n, i in enumerate(ids):
        j = job(i)
        if n % 7 == 0 and i not in held:
            assert j["attempt"] >= 2 and j["errors"][0]["error"] == "first try fails", j
        if n % 2 == 0:
            assert j["output"] == {"n": n}, j
    print("python worker: 30 jobs, 5 of a killed worker back after its lease")


async def heartbeats_keep_the_lease() -> None:
    [slow] = enqueue("pyslow", [{"n": 0, "slow_ms": LEASE_MS * 3}])
    worker = Worker(Client(base_url=URL), "pyslow", handler, lease_ms=LEASE_MS, wait_ms=500)
    run = asyncio.create_task(worker.run())
    await until(lambda: job(slow)["state"] == "completed", "the slow job completed")
    worker.stop()
    await asyncio.wait_for(run, 10)
    assert job(slow)["attempt"] == 1, f"a heartbeat kept the lease: {job(slow)}"
    print("python worker: a job three leases long kept its lease")


async def hand_back_on_shutdown() -> None:
    ids = enqueue("pyback", [{"n": i, "slow_ms": 60_000} for i in range(3)])
    worker = Worker(Client(base_url=URL), "pyback", handler, lease_ms=30_000, wait_ms=500, shutdown="hand_back")
    run = asyncio.create_task(worker.run())
    await until(lambda: counts("pyback")["running"] == 3, "three running")
    worker.stop()
    await asyncio.wait_for(run, 10)
    for i in ids:
        j = job(i)
        assert j["state"] in ("available", "scheduled") and j["attempt"] == 0, j
    print("python worker: a shutdown handed 3 running jobs back")


async def finish_on_shutdown() -> None:
    ids = enqueue("pyfinish", [{"n": i, "slow_ms": LEASE_MS * 3 if i == 3 else 1000} for i in range(4)])
    worker = Worker(Client(base_url=URL), "pyfinish", handler, lease_ms=LEASE_MS, wait_ms=500)
    run = asyncio.create_task(worker.run())
    await until(lambda: counts("pyfinish")["available"] == 0, "four claimed")
    worker.stop()
    await asyncio.wait_for(run, 10)
    for i in ids:
        j = job(i)
        assert j["state"] == "completed" and j["attempt"] == 1, j
    print("python worker: a finishing shutdown completed 4 jobs in their first attempt")


class FlakyTransport(httpx.AsyncHTTPTransport):
    """A network that fails every 4th request before it is sent and loses every 7th answer."""

    calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        FlakyTransport.calls += 1
        n = FlakyTransport.calls
        if n % 4 == 0:
            raise httpx.ConnectError("injected: connection reset before sending", request=request)
        answer = await super().handle_async_request(request)
        if n % 7 == 0:
            await answer.aread()
            raise httpx.ReadError("injected: connection reset after the answer", request=request)
        return answer


async def flaky_network() -> None:
    ids = enqueue("pyflaky", [{"n": i, "output": i % 2 == 0, "slow_ms": LEASE_MS if i % 5 == 0 else 0} for i in range(20)])
    client = Client(base_url=URL, httpx_args={"transport": FlakyTransport()})
    worker = Worker(client, "pyflaky", handler, concurrency=4, lease_ms=LEASE_MS, wait_ms=500)
    run = asyncio.create_task(worker.run())
    await until(lambda: counts("pyflaky")["completed"] == 20, "every job completed over a flaky network")
    worker.stop()
    await asyncio.wait_for(run, 10)
    for n, i in enumerate(ids):
        if n % 2 == 0:
            assert job(i)["output"] == {"n": n}, job(i)
    calls = FlakyTransport.calls
    assert calls >= 28, calls
    print(f"python worker: 20 jobs over a network that dropped {calls // 4 + calls // 7} of {calls} requests")


async def main() -> None:
    await killed_worker_and_the_rest()
    await heartbeats_keep_the_lease()
    await hand_back_on_shutdown()
    await finish_on_shutdown()
    await flaky_network()


asyncio.run(main())
