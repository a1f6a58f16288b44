from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ConfirmLine")



@_attrs_define
class ConfirmLine:
    """ One line of a partial confirm: how much of a SKU the hold holds is confirmed.

        Attributes:
            quantity (int): Units confirmed, 1..=what the hold holds of it.
            sku (str): A SKU of the hold.
     """

    quantity: int
    sku: str





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        sku = self.sku


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "quantity": quantity,
            "sku": sku,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        sku = d.pop("sku")

        confirm_line = cls(
            quantity=quantity,
            sku=sku,
        )

        return confirm_line

