from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.new_unit import NewUnit





T = TypeVar("T", bound="UnitsBody")



@_attrs_define
class UnitsBody:
    """ `POST /v1/skus/{sku}/units` body.

        Attributes:
            units (list[NewUnit]): 1..=`max_batch_insert` units.
     """

    units: list[NewUnit]





    def to_dict(self) -> dict[str, Any]:
        from ..models.new_unit import NewUnit # noqa: PLC0415
        units = []
        for units_item_data in self.units:
            units_item = units_item_data.to_dict()
            units.append(units_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "units": units,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.new_unit import NewUnit # noqa: PLC0415
        d = dict(src_dict)
        units = []
        _units = d.pop("units")
        for units_item_data in (_units):
            units_item = NewUnit.from_dict(units_item_data)



            units.append(units_item)


        units_body = cls(
            units=units,
        )

        return units_body

