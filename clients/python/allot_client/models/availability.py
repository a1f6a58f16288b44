from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.free_slot import FreeSlot
  from ..models.slot_availability import SlotAvailability





T = TypeVar("T", bound="Availability")



@_attrs_define
class Availability:
    """ `GET /v1/resources/{resource}/availability` body.

        Attributes:
            free (list[FreeSlot]): The free half-open gaps of the window (no blocking booking at all).
            from_ (datetime.datetime): Window start (UTC).
            resource (str): The resource.
            to (datetime.datetime): Window end (UTC).
            slots (list[SlotAvailability] | None | Unset): A resource with slots: each slot of the window with its
                `capacity`, `used` (confirmed),
                `held` (live holds) and `free` (also bounded by its pools), exact at the one snapshot
                it was read in.
     """

    free: list[FreeSlot]
    from_: datetime.datetime
    resource: str
    to: datetime.datetime
    slots: list[SlotAvailability] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.free_slot import FreeSlot # noqa: PLC0415
        from ..models.slot_availability import SlotAvailability # noqa: PLC0415
        free = []
        for free_item_data in self.free:
            free_item = free_item_data.to_dict()
            free.append(free_item)



        from_ = self.from_.isoformat()

        resource = self.resource

        to = self.to.isoformat()

        slots: list[dict[str, Any]] | None | Unset
        if isinstance(self.slots, Unset):
            slots = UNSET
        elif isinstance(self.slots, list):
            slots = []
            for slots_type_0_item_data in self.slots:
                slots_type_0_item = slots_type_0_item_data.to_dict()
                slots.append(slots_type_0_item)


        else:
            slots = self.slots


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "free": free,
            "from": from_,
            "resource": resource,
            "to": to,
        })
        if slots is not UNSET:
            field_dict["slots"] = slots

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.free_slot import FreeSlot # noqa: PLC0415
        from ..models.slot_availability import SlotAvailability # noqa: PLC0415
        d = dict(src_dict)
        free = []
        _free = d.pop("free")
        for free_item_data in (_free):
            free_item = FreeSlot.from_dict(free_item_data)



            free.append(free_item)


        from_ = datetime.datetime.fromisoformat(d.pop("from"))




        resource = d.pop("resource")

        to = datetime.datetime.fromisoformat(d.pop("to"))




        def _parse_slots(data: object) -> list[SlotAvailability] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                slots_type_0 = []
                _slots_type_0 = data
                for slots_type_0_item_data in (_slots_type_0):
                    slots_type_0_item = SlotAvailability.from_dict(slots_type_0_item_data)



                    slots_type_0.append(slots_type_0_item)

                return slots_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[SlotAvailability] | None | Unset, data)

        slots = _parse_slots(d.pop("slots", UNSET))


        availability = cls(
            free=free,
            from_=from_,
            resource=resource,
            to=to,
            slots=slots,
        )


        availability.additional_properties = d
        return availability

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
