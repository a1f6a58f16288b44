from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="BookingOverlap")



@_attrs_define
class BookingOverlap:
    """ Two blocking bookings of one resource that overlap (the audit's finding).

        Attributes:
            first (str): One booking's id.
            resource (str): The resource.
            second (str): The other's.
            tenant (str): The tenant the resource belongs to.
     """

    first: str
    resource: str
    second: str
    tenant: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        first = self.first

        resource = self.resource

        second = self.second

        tenant = self.tenant


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "first": first,
            "resource": resource,
            "second": second,
            "tenant": tenant,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        first = d.pop("first")

        resource = d.pop("resource")

        second = d.pop("second")

        tenant = d.pop("tenant")

        booking_overlap = cls(
            first=first,
            resource=resource,
            second=second,
            tenant=tenant,
        )


        booking_overlap.additional_properties = d
        return booking_overlap

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
