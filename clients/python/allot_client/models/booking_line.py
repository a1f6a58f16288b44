from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.booking_line_body import BookingLineBody





T = TypeVar("T", bound="BookingLine")



@_attrs_define
class BookingLine:
    """ A hold's booking line: `{"booking":{…}}`.

        Attributes:
            booking (BookingLineBody): The `booking` of a hold line: `[start, end)` of `resource`, `quantity` of its
                capacity.
     """

    booking: BookingLineBody





    def to_dict(self) -> dict[str, Any]:
        from ..models.booking_line_body import BookingLineBody # noqa: PLC0415
        booking = self.booking.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "booking": booking,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.booking_line_body import BookingLineBody # noqa: PLC0415
        d = dict(src_dict)
        booking = BookingLineBody.from_dict(d.pop("booking"))




        booking_line = cls(
            booking=booking,
        )

        return booking_line

