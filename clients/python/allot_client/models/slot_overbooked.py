from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="SlotOverbooked")



@_attrs_define
class SlotOverbooked:
    """ A slot over its capacity (the audit's finding).

        Attributes:
            booked (int): The quantity its blocking bookings take.
            capacity (int): Its capacity.
            slot_start (datetime.datetime): The slot's start.
            tenant (str): The tenant.
            pool (None | str | Unset): The pool whose slot it is (absent for a resource's).
            resource (None | str | Unset): The resource whose slot it is (absent for a pool's).
     """

    booked: int
    capacity: int
    slot_start: datetime.datetime
    tenant: str
    pool: None | str | Unset = UNSET
    resource: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        booked = self.booked

        capacity = self.capacity

        slot_start = self.slot_start.isoformat()

        tenant = self.tenant

        pool: None | str | Unset
        if isinstance(self.pool, Unset):
            pool = UNSET
        else:
            pool = self.pool

        resource: None | str | Unset
        if isinstance(self.resource, Unset):
            resource = UNSET
        else:
            resource = self.resource


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "booked": booked,
            "capacity": capacity,
            "slot_start": slot_start,
            "tenant": tenant,
        })
        if pool is not UNSET:
            field_dict["pool"] = pool
        if resource is not UNSET:
            field_dict["resource"] = resource

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booked = d.pop("booked")

        capacity = d.pop("capacity")

        slot_start = datetime.datetime.fromisoformat(d.pop("slot_start"))




        tenant = d.pop("tenant")

        def _parse_pool(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        pool = _parse_pool(d.pop("pool", UNSET))


        def _parse_resource(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resource = _parse_resource(d.pop("resource", UNSET))


        slot_overbooked = cls(
            booked=booked,
            capacity=capacity,
            slot_start=slot_start,
            tenant=tenant,
            pool=pool,
            resource=resource,
        )


        slot_overbooked.additional_properties = d
        return slot_overbooked

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
