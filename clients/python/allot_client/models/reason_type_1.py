from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.reason_type_1_rule import ReasonType1Rule






T = TypeVar("T", bound="ReasonType1")



@_attrs_define
class ReasonType1:
    """ A capacity-1 resource without slots has this blocking booking in the way.

        Attributes:
            booking_id (str): The booking in the way.
            rule (ReasonType1Rule):
     """

    booking_id: str
    rule: ReasonType1Rule
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        booking_id = self.booking_id

        rule = self.rule.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "booking_id": booking_id,
            "rule": rule,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booking_id = d.pop("booking_id")

        rule = ReasonType1Rule(d.pop("rule"))




        reason_type_1 = cls(
            booking_id=booking_id,
            rule=rule,
        )


        reason_type_1.additional_properties = d
        return reason_type_1

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
