"""What the generated `allot_client` package does not give: an idempotency key per logical
operation, cursor listings as iterators, and verification of webhook deliveries (Standard
Webhooks: HMAC-SHA256 over ``{id}.{timestamp}.{body}`` with a ``whsec_`` secret)."""

import base64
import hashlib
import hmac
import time
import uuid
from typing import Iterator

from allot_client import Client
from allot_client.api.stock import ledger
from allot_client.models import LedgerEntry, LedgerPage


def idempotency_key() -> str:
    """A new key: make one per logical operation and send it again on every retry of it."""
    return f"allot-{uuid.uuid4()}"


def ledger_entries(client: Client, sku: str, page: int = 100) -> Iterator[LedgerEntry]:
    """Every ledger entry of ``sku``, oldest first, ``page`` at a time, following each page's
    ``next`` (None on the last page, so no empty page is asked for)."""
    after = 0
    while True:
        answer = ledger.sync(sku, client=client, after=after, limit=page)
        if not isinstance(answer, LedgerPage):
            raise RuntimeError(f"ledger of {sku}: {answer}")
        yield from answer.entries
        if not isinstance(answer.next_, int):
            return
        after = answer.next_


class WebhookError(Exception):
    """A delivery that must be refused (its ``args[0]`` says why)."""


def verify_webhook(secret: str, headers: dict, body: bytes, tolerance_s: int = 300, now_s: int | None = None) -> None:
    """Check a delivery's ``webhook-timestamp`` (within ``tolerance_s``) and that one of the
    ``v1,`` signatures of ``webhook-signature`` was made with ``secret`` over the raw body.
    Raises ``WebhookError``; compares in constant time."""
    if not secret.startswith("whsec_"):
        raise WebhookError("secret is not whsec_…")
    try:
        key = base64.b64decode(secret[len("whsec_"):], validate=True)
        lower = {k.lower(): v for k, v in headers.items()}
        msg_id, stamp, signatures = lower["webhook-id"], lower["webhook-timestamp"], lower["webhook-signature"]
        sent_at = int(stamp)
    except (KeyError, ValueError) as e:  # binascii.Error is a ValueError
        raise WebhookError(f"malformed delivery: {e}") from e
    now = int(time.time()) if now_s is None else now_s
    if abs(now - sent_at) > tolerance_s:
        raise WebhookError("timestamp outside the tolerance")
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()).decode()
    sent = [s.split(",", 1)[1] for s in signatures.split(" ") if s.startswith("v1,")]
    if not any(hmac.compare_digest(s, expected) for s in sent):
        raise WebhookError("no signature matches")
