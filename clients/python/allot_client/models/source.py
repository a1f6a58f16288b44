from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Source")



@_attrs_define
class Source:
    """ How much of a line came from one location.

        Attributes:
            location (str): The location.
            quantity (int): Units taken there, >= 1.
     """

    location: str
    quantity: int





    def to_dict(self) -> dict[str, Any]:
        location = self.location

        quantity = self.quantity


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "location": location,
            "quantity": quantity,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        location = d.pop("location")

        quantity = d.pop("quantity")

        source = cls(
            location=location,
            quantity=quantity,
        )

        return source

