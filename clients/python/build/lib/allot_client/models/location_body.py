from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LocationBody")



@_attrs_define
class LocationBody:
    """ `POST /v1/locations` body.

        Attributes:
            location (str): Name.
            priority (int | None | Unset): Lower is placed first by the `priority` policy (default 0), `-10^6..=10^6`.
     """

    location: str
    priority: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        location = self.location

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "location": location,
        })
        if priority is not UNSET:
            field_dict["priority"] = priority

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        location = d.pop("location")

        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        priority = _parse_priority(d.pop("priority", UNSET))


        location_body = cls(
            location=location,
            priority=priority,
        )

        return location_body

