from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.reason_type_3_rule import ReasonType3Rule






T = TypeVar("T", bound="ReasonType3")



@_attrs_define
class ReasonType3:
    """ Too few slots.

        Attributes:
            asked (int): The slots asked.
            needed (int): The fewest allowed.
            rule (ReasonType3Rule):
     """

    asked: int
    needed: int
    rule: ReasonType3Rule
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        asked = self.asked

        needed = self.needed

        rule = self.rule.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "asked": asked,
            "needed": needed,
            "rule": rule,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        asked = d.pop("asked")

        needed = d.pop("needed")

        rule = ReasonType3Rule(d.pop("rule"))




        reason_type_3 = cls(
            asked=asked,
            needed=needed,
            rule=rule,
        )


        reason_type_3.additional_properties = d
        return reason_type_3

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
