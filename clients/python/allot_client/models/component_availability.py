from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ComponentAvailability")



@_attrs_define
class ComponentAvailability:
    """ One component in a [`KitAvailability`].

        Attributes:
            available (int): The SKU's available units.
            quantity (int): Units per kit.
            sku (str): The SKU.
     """

    available: int
    quantity: int
    sku: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        available = self.available

        quantity = self.quantity

        sku = self.sku


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "available": available,
            "quantity": quantity,
            "sku": sku,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        available = d.pop("available")

        quantity = d.pop("quantity")

        sku = d.pop("sku")

        component_availability = cls(
            available=available,
            quantity=quantity,
            sku=sku,
        )


        component_availability.additional_properties = d
        return component_availability

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
