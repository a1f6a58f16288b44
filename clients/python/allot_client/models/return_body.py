from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

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
            reference (None | str | Unset): An absolute URI naming the document behind it (an RMA); at most 2048 bytes; kept
                on
                the ledger entries of its sellable lines and in their events.
     """

    lines: list[ReturnLineBody]
    reference: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.return_line_body import ReturnLineBody # noqa: PLC0415
        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)



        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "lines": lines,
        })
        if reference is not UNSET:
            field_dict["reference"] = reference

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


        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        return_body = cls(
            lines=lines,
            reference=reference,
        )

        return return_body

