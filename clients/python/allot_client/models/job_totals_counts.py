from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="JobTotalsCounts")



@_attrs_define
class JobTotalsCounts:
    """ Jobs per state, every state present.

        Attributes:
            available (int | Unset):
            cancelled (int | Unset):
            completed (int | Unset):
            discarded (int | Unset):
            pending (int | Unset):
            retryable (int | Unset):
            running (int | Unset):
            scheduled (int | Unset):
     """

    available: int | Unset = UNSET
    cancelled: int | Unset = UNSET
    completed: int | Unset = UNSET
    discarded: int | Unset = UNSET
    pending: int | Unset = UNSET
    retryable: int | Unset = UNSET
    running: int | Unset = UNSET
    scheduled: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        available = self.available

        cancelled = self.cancelled

        completed = self.completed

        discarded = self.discarded

        pending = self.pending

        retryable = self.retryable

        running = self.running

        scheduled = self.scheduled


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if available is not UNSET:
            field_dict["available"] = available
        if cancelled is not UNSET:
            field_dict["cancelled"] = cancelled
        if completed is not UNSET:
            field_dict["completed"] = completed
        if discarded is not UNSET:
            field_dict["discarded"] = discarded
        if pending is not UNSET:
            field_dict["pending"] = pending
        if retryable is not UNSET:
            field_dict["retryable"] = retryable
        if running is not UNSET:
            field_dict["running"] = running
        if scheduled is not UNSET:
            field_dict["scheduled"] = scheduled

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        available = d.pop("available", UNSET)

        cancelled = d.pop("cancelled", UNSET)

        completed = d.pop("completed", UNSET)

        discarded = d.pop("discarded", UNSET)

        pending = d.pop("pending", UNSET)

        retryable = d.pop("retryable", UNSET)

        running = d.pop("running", UNSET)

        scheduled = d.pop("scheduled", UNSET)

        job_totals_counts = cls(
            available=available,
            cancelled=cancelled,
            completed=completed,
            discarded=discarded,
            pending=pending,
            retryable=retryable,
            running=running,
            scheduled=scheduled,
        )

        return job_totals_counts

