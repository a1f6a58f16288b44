"""The generated Python client against a live `allot serve` (ALLOT_URL): create a SKU,
allocate with an idempotency key (the retry replays), read the ledger by cursor, enqueue,
claim and complete a job, and verify a real webhook delivery with the helpers."""

import http.server
import os
import queue
import threading

from allot_client import Client
from allot_client.api.jobs import claim_jobs, complete_job, enqueue_jobs, get_job
from allot_client.api.stock import create_allocation, create_sku, ledger
from allot_client.api.webhooks import create_webhook
from allot_client.models import (AllocationBody, ClaimBody, CompleteBody, CreateSkuBody, EnqueueBody,
                                 WebhookBody)

from allot_helpers import WebhookError, idempotency_key, ledger_entries, verify_webhook

deliveries: "queue.Queue[tuple[dict, bytes]]" = queue.Queue()


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the standard library's name)
        body = self.rfile.read(int(self.headers["content-length"]))
        deliveries.put((dict(self.headers), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def main() -> None:
    client = Client(base_url=os.environ["ALLOT_URL"], raise_on_unexpected_status=True)
    receiver = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook = create_webhook.sync(client=client, body=WebhookBody.from_dict(
        {"url": f"http://127.0.0.1:{receiver.server_port}/hook", "types": ["*"]}))
    secret = hook.secret

    sku = create_sku.sync(client=client, body=CreateSkuBody.from_dict({"sku": "PY-1", "on_hand": 10}))
    assert sku.on_hand == 10, sku
    key = idempotency_key()
    line = {"lines": [{"sku": "PY-1", "quantity": 1}]}
    first = create_allocation.sync_detailed(client=client, body=AllocationBody.from_dict(line), idempotency_key=key)
    again = create_allocation.sync_detailed(client=client, body=AllocationBody.from_dict(line), idempotency_key=key)
    assert first.parsed.id == again.parsed.id, "the retry replays the first answer"
    assert again.headers.get("idempotent-replayed") == "true"
    for _ in range(4):
        create_allocation.sync(client=client, body=AllocationBody.from_dict(line), idempotency_key=idempotency_key())
    paged = [e.id for e in ledger_entries(client, "PY-1", page=2)]
    whole = [e.id for e in ledger.sync("PY-1", client=client, limit=1000).entries]
    assert paged == whole and len(paged) == 6, (paged, whole)

    enqueue_jobs.sync("py", client=client, body=EnqueueBody.from_dict({"jobs": [{"payload": {"n": 1}}]}))
    job = claim_jobs.sync("py", client=client, body=ClaimBody.from_dict({"max": 1})).jobs[0]
    complete_job.sync(job.id, client=client, body=CompleteBody.from_dict({"lease_token": job.lease_token}))
    assert get_job.sync(job.id, client=client).to_dict()["state"] == "completed"

    headers, body = deliveries.get(timeout=30)
    verify_webhook(secret, headers, body)
    try:
        verify_webhook(secret, headers, body + b" ")
        raise AssertionError("a changed body verified")
    except WebhookError:
        pass
    print("python client: ok")


if __name__ == "__main__":
    main()
