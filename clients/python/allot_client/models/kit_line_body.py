from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="KitLineBody")



@_attrs_define
class KitLineBody:
    """ A kit line of an allocation or hold: `quantity` kits, from `location` only when given.

        Attributes:
            kit (str): The kit.
            quantity (int): Kits, >= 1.
            location (None | str | Unset): Every component only from this location (overrides the request's `placement`).
     """

    kit: str
    quantity: int
    location: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        kit = self.kit

        quantity = self.quantity

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kit": kit,
            "quantity": quantity,
        })
        if location is not UNSET:
            field_dict["location"] = location

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kit = d.pop("kit")

        quantity = d.pop("quantity")

        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        kit_line_body = cls(
            kit=kit,
            quantity=quantity,
            location=location,
        )

        return kit_line_body

