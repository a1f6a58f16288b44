from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.return_line_body import ReturnLineBody





T = TypeVar("T", bound="ReturnBody")



@_attrs_define
class ReturnBody:
    """ `POST /v1/allocations/{id}/returns` body (a SKU may appear in several lines).

        Attributes:
            lines (list[ReturnLineBody]): One line per SKU.
     """

    lines: list[ReturnLineBody]





    def to_dict(self) -> dict[str, Any]:
        from ..models.return_line_body import ReturnLineBody # noqa: PLC0415
        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "lines": lines,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.return_line_body import ReturnLineBody # noqa: PLC0415
        d = dict(src_dict)
        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = ReturnLineBody.from_dict(lines_item_data)



            lines.append(lines_item)


        return_body = cls(
            lines=lines,
        )

        return return_body

