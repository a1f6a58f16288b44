from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.reason_type_2_rule import ReasonType2Rule
from typing import cast
import datetime






T = TypeVar("T", bound="ReasonType2")



@_attrs_define
class ReasonType2:
    """ The range overlaps a closure.

        Attributes:
            from_ (datetime.datetime): The closure's start.
            rule (ReasonType2Rule):
            to (datetime.datetime): The closure's end.
     """

    from_: datetime.datetime
    rule: ReasonType2Rule
    to: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.isoformat()

        rule = self.rule.value

        to = self.to.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "from": from_,
            "rule": rule,
            "to": to,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = datetime.datetime.fromisoformat(d.pop("from"))




        rule = ReasonType2Rule(d.pop("rule"))




        to = datetime.datetime.fromisoformat(d.pop("to"))




        reason_type_2 = cls(
            from_=from_,
            rule=rule,
            to=to,
        )


        reason_type_2.additional_properties = d
        return reason_type_2

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
