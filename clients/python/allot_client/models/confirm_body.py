from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.confirm_booking_line import ConfirmBookingLine
  from ..models.confirm_line import ConfirmLine





T = TypeVar("T", bound="ConfirmBody")



@_attrs_define
class ConfirmBody:
    """ `POST /v1/holds/{id}/confirm` body, optional: without `lines` the whole hold is confirmed.

        Attributes:
            lines (list[ConfirmBookingLine | ConfirmLine] | None | Unset): Confirm only these lines: quantities of the
                hold's stock and unit SKUs (each SKU once,
                else 422 `duplicate_sku`; at most what the hold holds of it, else
                `insufficient_stock`) and its bookings by id (each once; one not of the hold is 422
                `not_in_hold`); what is not named is released. A unit SKU keeps its `quantity` units of
                the lowest ids (the order `GET /v1/holds/{id}` lists them in).
     """

    lines: list[ConfirmBookingLine | ConfirmLine] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.confirm_booking_line import ConfirmBookingLine # noqa: PLC0415
        from ..models.confirm_line import ConfirmLine # noqa: PLC0415
        lines: list[dict[str, Any]] | None | Unset
        if isinstance(self.lines, Unset):
            lines = UNSET
        elif isinstance(self.lines, list):
            lines = []
            for lines_type_0_item_data in self.lines:
                lines_type_0_item: dict[str, Any]
                if isinstance(lines_type_0_item_data, ConfirmLine):
                    lines_type_0_item = lines_type_0_item_data.to_dict()
                else:
                    lines_type_0_item = lines_type_0_item_data.to_dict()

                lines.append(lines_type_0_item)


        else:
            lines = self.lines


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if lines is not UNSET:
            field_dict["lines"] = lines

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.confirm_booking_line import ConfirmBookingLine # noqa: PLC0415
        from ..models.confirm_line import ConfirmLine # noqa: PLC0415
        d = dict(src_dict)
        def _parse_lines(data: object) -> list[ConfirmBookingLine | ConfirmLine] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                lines_type_0 = []
                _lines_type_0 = data
                for lines_type_0_item_data in (_lines_type_0):
                    def _parse_lines_type_0_item(data: object) -> ConfirmBookingLine | ConfirmLine:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_confirm_line_body_type_0 = ConfirmLine.from_dict(data)



                            return componentsschemas_confirm_line_body_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_confirm_line_body_type_1 = ConfirmBookingLine.from_dict(data)



                        return componentsschemas_confirm_line_body_type_1

                    lines_type_0_item = _parse_lines_type_0_item(lines_type_0_item_data)

                    lines_type_0.append(lines_type_0_item)

                return lines_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ConfirmBookingLine | ConfirmLine] | None | Unset, data)

        lines = _parse_lines(d.pop("lines", UNSET))


        confirm_body = cls(
            lines=lines,
        )

        return confirm_body

