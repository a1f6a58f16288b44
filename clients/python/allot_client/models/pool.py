from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Pool")



@_attrs_define
class Pool:
    """ A pool as stored and answered.

        Attributes:
            capacity (int): Bookable quantity per slot.
            pool (str): The pool.
            slot_ms (int): Slot length, ms.
            time_zone (str): IANA time zone.
            updated_at (datetime.datetime): When it was last put.
            lowered_at (datetime.datetime | None | Unset): When a put last made it, lowered its capacity or changed its
                slots.
     """

    capacity: int
    pool: str
    slot_ms: int
    time_zone: str
    updated_at: datetime.datetime
    lowered_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        capacity = self.capacity

        pool = self.pool

        slot_ms = self.slot_ms

        time_zone = self.time_zone

        updated_at = self.updated_at.isoformat()

        lowered_at: None | str | Unset
        if isinstance(self.lowered_at, Unset):
            lowered_at = UNSET
        elif isinstance(self.lowered_at, datetime.datetime):
            lowered_at = self.lowered_at.isoformat()
        else:
            lowered_at = self.lowered_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "capacity": capacity,
            "pool": pool,
            "slot_ms": slot_ms,
            "time_zone": time_zone,
            "updated_at": updated_at,
        })
        if lowered_at is not UNSET:
            field_dict["lowered_at"] = lowered_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capacity = d.pop("capacity")

        pool = d.pop("pool")

        slot_ms = d.pop("slot_ms")

        time_zone = d.pop("time_zone")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        def _parse_lowered_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                lowered_at_type_0 = datetime.datetime.fromisoformat(data)



                return lowered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        lowered_at = _parse_lowered_at(d.pop("lowered_at", UNSET))


        pool = cls(
            capacity=capacity,
            pool=pool,
            slot_ms=slot_ms,
            time_zone=time_zone,
            updated_at=updated_at,
            lowered_at=lowered_at,
        )


        pool.additional_properties = d
        return pool

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
