from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.return_line import ReturnLine





T = TypeVar("T", bound="Return")



@_attrs_define
class Return:
    """ A validated return, and (answered) a return made.

        Attributes:
            allocation_id (str): The allocation it comes back from (the `ref` of its ledger entries).
            created_at (datetime.datetime): When it was made.
            id (str): Server-generated id (UUID v4 text).
            lines (list[ReturnLine]): Its lines, by SKU (a SKU may have several: one per location and state).
            reference (None | str | Unset): The document behind it, if the request named one.
     """

    allocation_id: str
    created_at: datetime.datetime
    id: str
    lines: list[ReturnLine]
    reference: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.return_line import ReturnLine # noqa: PLC0415
        allocation_id = self.allocation_id

        created_at = self.created_at.isoformat()

        id = self.id

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
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allocation_id": allocation_id,
            "created_at": created_at,
            "id": id,
            "lines": lines,
        })
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.return_line import ReturnLine # noqa: PLC0415
        d = dict(src_dict)
        allocation_id = d.pop("allocation_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = d.pop("id")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = ReturnLine.from_dict(lines_item_data)



            lines.append(lines_item)


        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        return_ = cls(
            allocation_id=allocation_id,
            created_at=created_at,
            id=id,
            lines=lines,
            reference=reference,
        )


        return_.additional_properties = d
        return return_

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
