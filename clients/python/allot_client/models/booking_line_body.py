from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="BookingLineBody")



@_attrs_define
class BookingLineBody:
    """ The `booking` of a hold line: `[start, end)` of `resource`, `quantity` of its capacity.

        Attributes:
            end (str): End, exclusive; after `start`.
            resource (str): The resource.
            start (str): Start, inclusive (RFC 3339 with offset).
            quantity (int | None | Unset): How many of the resource's capacity it takes in each slot (default 1; more needs
                a
                resource with slots).
     """

    end: str
    resource: str
    start: str
    quantity: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        end = self.end

        resource = self.resource

        start = self.start

        quantity: int | None | Unset
        if isinstance(self.quantity, Unset):
            quantity = UNSET
        else:
            quantity = self.quantity


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "end": end,
            "resource": resource,
            "start": start,
        })
        if quantity is not UNSET:
            field_dict["quantity"] = quantity

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        end = d.pop("end")

        resource = d.pop("resource")

        start = d.pop("start")

        def _parse_quantity(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        quantity = _parse_quantity(d.pop("quantity", UNSET))


        booking_line_body = cls(
            end=end,
            resource=resource,
            start=start,
            quantity=quantity,
        )

        return booking_line_body

