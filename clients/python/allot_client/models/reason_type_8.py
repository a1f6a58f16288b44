from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.reason_type_8_rule import ReasonType8Rule






T = TypeVar("T", bound="ReasonType8")



@_attrs_define
class ReasonType8:
    """ The booking starts sooner than the lead time.

        Attributes:
            lead_time_ms (int): The lead time, ms.
            rule (ReasonType8Rule):
            starts_in_ms (int): How long from now it starts, ms (negative: in the past).
     """

    lead_time_ms: int
    rule: ReasonType8Rule
    starts_in_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        lead_time_ms = self.lead_time_ms

        rule = self.rule.value

        starts_in_ms = self.starts_in_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "lead_time_ms": lead_time_ms,
            "rule": rule,
            "starts_in_ms": starts_in_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lead_time_ms = d.pop("lead_time_ms")

        rule = ReasonType8Rule(d.pop("rule"))




        starts_in_ms = d.pop("starts_in_ms")

        reason_type_8 = cls(
            lead_time_ms=lead_time_ms,
            rule=rule,
            starts_in_ms=starts_in_ms,
        )


        reason_type_8.additional_properties = d
        return reason_type_8

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
