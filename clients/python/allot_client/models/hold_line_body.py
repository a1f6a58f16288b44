from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.unit_line_body import UnitLineBody





T = TypeVar("T", bound="HoldLineBody")



@_attrs_define
class HoldLineBody:
    """ One line of `POST /v1/holds`: stock (`sku`, `quantity`, `location`?, as an allocation's
    line) or units (`units`), never both.

        Attributes:
            location (None | str | Unset): A stock line's pinned location.
            quantity (int | None | Unset): A stock line's quantity, >= 1.
            sku (None | str | Unset): A stock line's SKU (count-tracked).
            units (None | UnitLineBody | Unset):
     """

    location: None | str | Unset = UNSET
    quantity: int | None | Unset = UNSET
    sku: None | str | Unset = UNSET
    units: None | UnitLineBody | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.unit_line_body import UnitLineBody # noqa: PLC0415
        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        quantity: int | None | Unset
        if isinstance(self.quantity, Unset):
            quantity = UNSET
        else:
            quantity = self.quantity

        sku: None | str | Unset
        if isinstance(self.sku, Unset):
            sku = UNSET
        else:
            sku = self.sku

        units: dict[str, Any] | None | Unset
        if isinstance(self.units, Unset):
            units = UNSET
        elif isinstance(self.units, UnitLineBody):
            units = self.units.to_dict()
        else:
            units = self.units


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if location is not UNSET:
            field_dict["location"] = location
        if quantity is not UNSET:
            field_dict["quantity"] = quantity
        if sku is not UNSET:
            field_dict["sku"] = sku
        if units is not UNSET:
            field_dict["units"] = units

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.unit_line_body import UnitLineBody # noqa: PLC0415
        d = dict(src_dict)
        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_quantity(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        quantity = _parse_quantity(d.pop("quantity", UNSET))


        def _parse_sku(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sku = _parse_sku(d.pop("sku", UNSET))


        def _parse_units(data: object) -> None | UnitLineBody | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                units_type_1 = UnitLineBody.from_dict(data)



                return units_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UnitLineBody | Unset, data)

        units = _parse_units(d.pop("units", UNSET))


        hold_line_body = cls(
            location=location,
            quantity=quantity,
            sku=sku,
            units=units,
        )

        return hold_line_body

