from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Level")



@_attrs_define
class Level:
    """ A SKU's counts at one location (`available = on_hand - held - damaged - quality_control -
    safety_stock`).

        Attributes:
            available (int): `on_hand - held`.
            damaged (int): On hand there but broken or spoiled: never sold (see `allot_core::states`).
            held (int): Held there.
            incoming (int): Expected there, not on hand yet.
            location (str): The location.
            on_hand (int): On hand there.
            quality_control (int): On hand there but waiting for inspection: never sold.
            safety_stock (int): On hand there but kept back as a buffer: never sold.
     """

    available: int
    damaged: int
    held: int
    incoming: int
    location: str
    on_hand: int
    quality_control: int
    safety_stock: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        available = self.available

        damaged = self.damaged

        held = self.held

        incoming = self.incoming

        location = self.location

        on_hand = self.on_hand

        quality_control = self.quality_control

        safety_stock = self.safety_stock


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "available": available,
            "damaged": damaged,
            "held": held,
            "incoming": incoming,
            "location": location,
            "on_hand": on_hand,
            "quality_control": quality_control,
            "safety_stock": safety_stock,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        available = d.pop("available")

        damaged = d.pop("damaged")

        held = d.pop("held")

        incoming = d.pop("incoming")

        location = d.pop("location")

        on_hand = d.pop("on_hand")

        quality_control = d.pop("quality_control")

        safety_stock = d.pop("safety_stock")

        level = cls(
            available=available,
            damaged=damaged,
            held=held,
            incoming=incoming,
            location=location,
            on_hand=on_hand,
            quality_control=quality_control,
            safety_stock=safety_stock,
        )


        level.additional_properties = d
        return level

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
