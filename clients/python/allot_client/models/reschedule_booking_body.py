from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RescheduleBookingBody")



@_attrs_define
class RescheduleBookingBody:
    """ `POST /v1/bookings/{id}/reschedule` body: the new range (and quantity), taken and the old
    one freed in one transaction.

        Attributes:
            end (str): New end.
            start (str): New start (RFC 3339 with offset).
            quantity (int | None | Unset): New quantity (default: the booking's own).
     """

    end: str
    start: str
    quantity: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        end = self.end

        start = self.start

        quantity: int | None | Unset
        if isinstance(self.quantity, Unset):
            quantity = UNSET
        else:
            quantity = self.quantity


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "end": end,
            "start": start,
        })
        if quantity is not UNSET:
            field_dict["quantity"] = quantity

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        end = d.pop("end")

        start = d.pop("start")

        def _parse_quantity(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        quantity = _parse_quantity(d.pop("quantity", UNSET))


        reschedule_booking_body = cls(
            end=end,
            start=start,
            quantity=quantity,
        )

        return reschedule_booking_body

