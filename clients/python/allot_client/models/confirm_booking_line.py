from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ConfirmBookingLine")



@_attrs_define
class ConfirmBookingLine:
    """ A partial confirm's booking line: `{"booking":"<id>"}`, the id of one of the hold's
    bookings (as the hold lists them).

        Attributes:
            booking (str): The booking's id.
     """

    booking: str





    def to_dict(self) -> dict[str, Any]:
        booking = self.booking


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "booking": booking,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booking = d.pop("booking")

        confirm_booking_line = cls(
            booking=booking,
        )

        return confirm_booking_line

