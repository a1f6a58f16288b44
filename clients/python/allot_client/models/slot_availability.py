from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="SlotAvailability")



@_attrs_define
class SlotAvailability:
    """ One slot of an availability answer.

        Attributes:
            capacity (int): The slot's capacity.
            end (datetime.datetime): End, exclusive.
            free (int): What one more booking may take: the capacity less used and held, and no more than
                every pool of the resource has free in the slots it overlaps (never below 0).
            held (int): Taken by live held bookings.
            start (datetime.datetime): Start, inclusive.
            used (int): Taken by confirmed bookings.
     """

    capacity: int
    end: datetime.datetime
    free: int
    held: int
    start: datetime.datetime
    used: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        capacity = self.capacity

        end = self.end.isoformat()

        free = self.free

        held = self.held

        start = self.start.isoformat()

        used = self.used


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "capacity": capacity,
            "end": end,
            "free": free,
            "held": held,
            "start": start,
            "used": used,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capacity = d.pop("capacity")

        end = datetime.datetime.fromisoformat(d.pop("end"))




        free = d.pop("free")

        held = d.pop("held")

        start = datetime.datetime.fromisoformat(d.pop("start"))




        used = d.pop("used")

        slot_availability = cls(
            capacity=capacity,
            end=end,
            free=free,
            held=held,
            start=start,
            used=used,
        )


        slot_availability.additional_properties = d
        return slot_availability

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
