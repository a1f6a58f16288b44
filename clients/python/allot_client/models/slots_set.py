from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.slot_availability import SlotAvailability





T = TypeVar("T", bound="SlotsSet")



@_attrs_define
class SlotsSet:
    """ `PUT /v1/resources/{resource}/slots` answer: the slots set, as availability reads them.

        Attributes:
            slots (list[SlotAvailability]): Every slot whose capacity was set, with its use.
     """

    slots: list[SlotAvailability]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.slot_availability import SlotAvailability # noqa: PLC0415
        slots = []
        for slots_item_data in self.slots:
            slots_item = slots_item_data.to_dict()
            slots.append(slots_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "slots": slots,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.slot_availability import SlotAvailability # noqa: PLC0415
        d = dict(src_dict)
        slots = []
        _slots = d.pop("slots")
        for slots_item_data in (_slots):
            slots_item = SlotAvailability.from_dict(slots_item_data)



            slots.append(slots_item)


        slots_set = cls(
            slots=slots,
        )


        slots_set.additional_properties = d
        return slots_set

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
