from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="SlotCapacityBody")



@_attrs_define
class SlotCapacityBody:
    """ `PUT /v1/resources/{resource}/slots` body: the capacity of every slot starting in
    `[from, to)`.

        Attributes:
            capacity (int): The slots' capacity, 0..=1 000 000 (`0`: stop-sell).
            from_ (str): RFC 3339 with offset, inclusive.
            to (str): RFC 3339 with offset, exclusive.
     """

    capacity: int
    from_: str
    to: str





    def to_dict(self) -> dict[str, Any]:
        capacity = self.capacity

        from_ = self.from_

        to = self.to


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "capacity": capacity,
            "from": from_,
            "to": to,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capacity = d.pop("capacity")

        from_ = d.pop("from")

        to = d.pop("to")

        slot_capacity_body = cls(
            capacity=capacity,
            from_=from_,
            to=to,
        )

        return slot_capacity_body

