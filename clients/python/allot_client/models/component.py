from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Component")



@_attrs_define
class Component:
    """ One component of a kit: a count-tracked SKU and how many of it one kit takes.

        Attributes:
            quantity (int): Units of it per kit, 1..=`max_quantity`.
            sku (str): The SKU (count-tracked; it must exist when the kit is written).
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

        component = cls(
            quantity=quantity,
            sku=sku,
        )

        return component

