from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.unit_line_body import UnitLineBody





T = TypeVar("T", bound="UnitsLine")



@_attrs_define
class UnitsLine:
    """ A hold's unit line: `{"units":{…}}`.

        Attributes:
            units (UnitLineBody): The `units` of a hold line.
     """

    units: UnitLineBody





    def to_dict(self) -> dict[str, Any]:
        from ..models.unit_line_body import UnitLineBody # noqa: PLC0415
        units = self.units.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "units": units,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.unit_line_body import UnitLineBody # noqa: PLC0415
        d = dict(src_dict)
        units = UnitLineBody.from_dict(d.pop("units"))




        units_line = cls(
            units=units,
        )

        return units_line

