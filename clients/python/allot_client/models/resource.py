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
  from ..models.rules import Rules





T = TypeVar("T", bound="Resource")



@_attrs_define
class Resource:
    """ A resource as stored and answered.

        Attributes:
            capacity (int): Bookable quantity per slot (per range without slots: then 1).
            pools (list[str]): Pools it counts against, sorted.
            resource (str): The resource.
            rules (Rules): A resource's rules, validated.
            time_zone (str): IANA time zone.
            lowered_at (datetime.datetime | None | Unset): When a put last lowered what it sells — made it, lowered its
                capacity, changed its
                slots or time zone, or joined a pool (the audit's leniency: see `audit::slots`).
            slot_ms (int | None | Unset): Slot length, ms; `None`: no slots (capacity 1, bookings never overlap).
            updated_at (datetime.datetime | None | Unset): When it was last put (`None`: never put, the defaults).
     """

    capacity: int
    pools: list[str]
    resource: str
    rules: Rules
    time_zone: str
    lowered_at: datetime.datetime | None | Unset = UNSET
    slot_ms: int | None | Unset = UNSET
    updated_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.rules import Rules # noqa: PLC0415
        capacity = self.capacity

        pools = self.pools



        resource = self.resource

        rules = self.rules.to_dict()

        time_zone = self.time_zone

        lowered_at: None | str | Unset
        if isinstance(self.lowered_at, Unset):
            lowered_at = UNSET
        elif isinstance(self.lowered_at, datetime.datetime):
            lowered_at = self.lowered_at.isoformat()
        else:
            lowered_at = self.lowered_at

        slot_ms: int | None | Unset
        if isinstance(self.slot_ms, Unset):
            slot_ms = UNSET
        else:
            slot_ms = self.slot_ms

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "capacity": capacity,
            "pools": pools,
            "resource": resource,
            "rules": rules,
            "time_zone": time_zone,
        })
        if lowered_at is not UNSET:
            field_dict["lowered_at"] = lowered_at
        if slot_ms is not UNSET:
            field_dict["slot_ms"] = slot_ms
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rules import Rules # noqa: PLC0415
        d = dict(src_dict)
        capacity = d.pop("capacity")

        pools = cast(list[str], d.pop("pools"))


        resource = d.pop("resource")

        rules = Rules.from_dict(d.pop("rules"))




        time_zone = d.pop("time_zone")

        def _parse_lowered_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                lowered_at_type_0 = datetime.datetime.fromisoformat(data)



                return lowered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        lowered_at = _parse_lowered_at(d.pop("lowered_at", UNSET))


        def _parse_slot_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        slot_ms = _parse_slot_ms(d.pop("slot_ms", UNSET))


        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)



                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))


        resource = cls(
            capacity=capacity,
            pools=pools,
            resource=resource,
            rules=rules,
            time_zone=time_zone,
            lowered_at=lowered_at,
            slot_ms=slot_ms,
            updated_at=updated_at,
        )


        resource.additional_properties = d
        return resource

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
