from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.reason_type_6_rule import ReasonType6Rule
from typing import cast
import datetime






T = TypeVar("T", bound="ReasonType6")



@_attrs_define
class ReasonType6:
    """ No booking may end on this local date.

        Attributes:
            date (datetime.date): The departure date.
            rule (ReasonType6Rule):
     """

    date: datetime.date
    rule: ReasonType6Rule
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        date = self.date.isoformat()

        rule = self.rule.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "date": date,
            "rule": rule,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        date = datetime.date.fromisoformat(d.pop("date"))




        rule = ReasonType6Rule(d.pop("rule"))




        reason_type_6 = cls(
            date=date,
            rule=rule,
        )


        reason_type_6.additional_properties = d
        return reason_type_6

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
