from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="QueueSettingsBodyWeightsType0")



@_attrs_define
class QueueSettingsBodyWeightsType0:
    """ Jobs a key's turn takes while the queue has `fair_by`, 1..=1000 (`MAX_FAIR_WEIGHT`),
    by key (at most 1000 keys, each a valid `partition_key`); a key not named takes 1, as
    do the jobs without a key. Kept as put when the queue is not fair (then unused).

     """

    additional_properties: dict[str, int] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        
        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        queue_settings_body_weights_type_0 = cls(
        )


        queue_settings_body_weights_type_0.additional_properties = d
        return queue_settings_body_weights_type_0

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> int:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: int) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
