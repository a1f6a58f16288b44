from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="UnitLineBody")



@_attrs_define
class UnitLineBody:
    """ The `units` of a hold line.

        Attributes:
            quantity (int): How many units, 1..=`max_unit_claim`.
            sku (str): The SKU (unit-tracked).
            order_by (list[str] | Unset): As a unit claim's `order_by`.
            serials (list[str] | None | Unset): The very units to hold, by serial: exactly `quantity` of them, each once,
                not with
                `order_by` (`400` naming the line otherwise). All of them or none: one that is not
                available (unknown, claimed, held) refuses the hold with `409 insufficient_stock`,
                `available` counting those of them that are.
     """

    quantity: int
    sku: str
    order_by: list[str] | Unset = UNSET
    serials: list[str] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        sku = self.sku

        order_by: list[str] | Unset = UNSET
        if not isinstance(self.order_by, Unset):
            order_by = self.order_by



        serials: list[str] | None | Unset
        if isinstance(self.serials, Unset):
            serials = UNSET
        elif isinstance(self.serials, list):
            serials = self.serials


        else:
            serials = self.serials


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "quantity": quantity,
            "sku": sku,
        })
        if order_by is not UNSET:
            field_dict["order_by"] = order_by
        if serials is not UNSET:
            field_dict["serials"] = serials

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        sku = d.pop("sku")

        order_by = cast(list[str], d.pop("order_by", UNSET))


        def _parse_serials(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                serials_type_0 = cast(list[str], data)

                return serials_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        serials = _parse_serials(d.pop("serials", UNSET))


        unit_line_body = cls(
            quantity=quantity,
            sku=sku,
            order_by=order_by,
            serials=serials,
        )

        return unit_line_body

