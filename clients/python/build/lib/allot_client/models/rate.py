from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="Rate")



@_attrs_define
class Rate:
    """ A start-rate limit: at most `per_window` jobs started in any `window_ms` (a sliding
    window over the recorded starts, not fixed buckets).

        Attributes:
            per_window (int): Starts allowed per window, 1..=`max_queue_limit`.
            window_ms (int): The window, ms (1..=`max_rate_window_ms`).
            per_key (bool | Unset): Count starts per `partition_key` instead of queue-wide (jobs without a key then are
                not rate limited). Default false.
     """

    per_window: int
    window_ms: int
    per_key: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        per_window = self.per_window

        window_ms = self.window_ms

        per_key = self.per_key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "per_window": per_window,
            "window_ms": window_ms,
        })
        if per_key is not UNSET:
            field_dict["per_key"] = per_key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        per_window = d.pop("per_window")

        window_ms = d.pop("window_ms")

        per_key = d.pop("per_key", UNSET)

        rate = cls(
            per_window=per_window,
            window_ms=window_ms,
            per_key=per_key,
        )

        return rate

