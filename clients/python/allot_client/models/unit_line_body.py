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
     """

    quantity: int
    sku: str
    order_by: list[str] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        sku = self.sku

        order_by: list[str] | Unset = UNSET
        if not isinstance(self.order_by, Unset):
            order_by = self.order_by




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "quantity": quantity,
            "sku": sku,
        })
        if order_by is not UNSET:
            field_dict["order_by"] = order_by

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        sku = d.pop("sku")

        order_by = cast(list[str], d.pop("order_by", UNSET))


        unit_line_body = cls(
            quantity=quantity,
            sku=sku,
            order_by=order_by,
        )

        return unit_line_body

