from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PoolBody")



@_attrs_define
class PoolBody:
    """ `PUT /v1/pools/{pool}` body.

        Attributes:
            capacity (int): Bookable quantity per slot, 0..=1 000 000, shared by every resource in the pool.
            slot_ms (int): Slot length, ms, dividing a day.
            time_zone (None | str | Unset): IANA time zone (default `UTC`).
     """

    capacity: int
    slot_ms: int
    time_zone: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        capacity = self.capacity

        slot_ms = self.slot_ms

        time_zone: None | str | Unset
        if isinstance(self.time_zone, Unset):
            time_zone = UNSET
        else:
            time_zone = self.time_zone


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "capacity": capacity,
            "slot_ms": slot_ms,
        })
        if time_zone is not UNSET:
            field_dict["time_zone"] = time_zone

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capacity = d.pop("capacity")

        slot_ms = d.pop("slot_ms")

        def _parse_time_zone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        time_zone = _parse_time_zone(d.pop("time_zone", UNSET))


        pool_body = cls(
            capacity=capacity,
            slot_ms=slot_ms,
            time_zone=time_zone,
        )

        return pool_body

