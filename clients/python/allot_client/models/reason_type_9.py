from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.reason_type_9_rule import ReasonType9Rule






T = TypeVar("T", bound="ReasonType9")



@_attrs_define
class ReasonType9:
    """ The booking starts further ahead than the horizon.

        Attributes:
            horizon_ms (int): The horizon, ms.
            rule (ReasonType9Rule):
            starts_in_ms (int): How long from now it starts, ms.
     """

    horizon_ms: int
    rule: ReasonType9Rule
    starts_in_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        horizon_ms = self.horizon_ms

        rule = self.rule.value

        starts_in_ms = self.starts_in_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "horizon_ms": horizon_ms,
            "rule": rule,
            "starts_in_ms": starts_in_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        horizon_ms = d.pop("horizon_ms")

        rule = ReasonType9Rule(d.pop("rule"))




        starts_in_ms = d.pop("starts_in_ms")

        reason_type_9 = cls(
            horizon_ms=horizon_ms,
            rule=rule,
            starts_in_ms=starts_in_ms,
        )


        reason_type_9.additional_properties = d
        return reason_type_9

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
