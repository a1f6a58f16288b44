from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="BulkResult")



@_attrs_define
class BulkResult:
    """ `POST /v1/queues/{queue}/jobs/bulk` answer.

        Attributes:
            changed (int): Jobs it changed (0 on a dry run).
            matched (int): Jobs this call matched (at most `max`).
            more (bool): More jobs match beyond `max`: call again.
     """

    changed: int
    matched: int
    more: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        changed = self.changed

        matched = self.matched

        more = self.more


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "changed": changed,
            "matched": matched,
            "more": more,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        changed = d.pop("changed")

        matched = d.pop("matched")

        more = d.pop("more")

        bulk_result = cls(
            changed=changed,
            matched=matched,
            more=more,
        )


        bulk_result.additional_properties = d
        return bulk_result

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
