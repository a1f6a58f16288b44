from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ClaimBody")



@_attrs_define
class ClaimBody:
    """ `POST /v1/queues/{queue}/claims` body.

        Attributes:
            lease_ms (int | None | Unset): Lease (visibility timeout), `min_lease_ms..=max_lease_ms`. Default 30 000.
            max_ (int | None | Unset): Most jobs to claim, 1..=`max_claim`. Default 1.
            strategy (None | str | Unset): `skip_locked` (default) or `advisory` on PostgreSQL; `serialized` on SQLite.
            wait_ms (int | None | Unset): Long-poll: when nothing is runnable, wait up to this long (0..=`max_wait_ms`) for
                a
                job before answering empty. Default 0.
            worker (None | str | Unset): Who claims (for operators).
     """

    lease_ms: int | None | Unset = UNSET
    max_: int | None | Unset = UNSET
    strategy: None | str | Unset = UNSET
    wait_ms: int | None | Unset = UNSET
    worker: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        lease_ms: int | None | Unset
        if isinstance(self.lease_ms, Unset):
            lease_ms = UNSET
        else:
            lease_ms = self.lease_ms

        max_: int | None | Unset
        if isinstance(self.max_, Unset):
            max_ = UNSET
        else:
            max_ = self.max_

        strategy: None | str | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        else:
            strategy = self.strategy

        wait_ms: int | None | Unset
        if isinstance(self.wait_ms, Unset):
            wait_ms = UNSET
        else:
            wait_ms = self.wait_ms

        worker: None | str | Unset
        if isinstance(self.worker, Unset):
            worker = UNSET
        else:
            worker = self.worker


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if lease_ms is not UNSET:
            field_dict["lease_ms"] = lease_ms
        if max_ is not UNSET:
            field_dict["max"] = max_
        if strategy is not UNSET:
            field_dict["strategy"] = strategy
        if wait_ms is not UNSET:
            field_dict["wait_ms"] = wait_ms
        if worker is not UNSET:
            field_dict["worker"] = worker

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_lease_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lease_ms = _parse_lease_ms(d.pop("lease_ms", UNSET))


        def _parse_max_(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_ = _parse_max_(d.pop("max", UNSET))


        def _parse_strategy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        strategy = _parse_strategy(d.pop("strategy", UNSET))


        def _parse_wait_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        wait_ms = _parse_wait_ms(d.pop("wait_ms", UNSET))


        def _parse_worker(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        worker = _parse_worker(d.pop("worker", UNSET))


        claim_body = cls(
            lease_ms=lease_ms,
            max_=max_,
            strategy=strategy,
            wait_ms=wait_ms,
            worker=worker,
        )

        return claim_body

