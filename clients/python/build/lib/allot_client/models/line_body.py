from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LineBody")



@_attrs_define
class LineBody:
    """ One line of an allocation or hold request, as a client may say it: a SKU, how many units
    and, optionally, the one location they must come from. Nothing else: where a line came
    from and what came back of it are the server's ([`AllocationLine`]), and naming them in a
    request is an unknown field (parse, don't validate).

        Attributes:
            quantity (int): Units, >= 1.
            sku (str): The SKU.
            location (None | str | Unset): Only from this location (overrides the request's `placement`).
     """

    quantity: int
    sku: str
    location: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        sku = self.sku

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "quantity": quantity,
            "sku": sku,
        })
        if location is not UNSET:
            field_dict["location"] = location

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        sku = d.pop("sku")

        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        line_body = cls(
            quantity=quantity,
            sku=sku,
            location=location,
        )

        return line_body

