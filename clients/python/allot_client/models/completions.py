from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="Completions")



@_attrs_define
class Completions:
    """ `POST /v1/queues/{queue}/completions` answer.

        Attributes:
            completed (list[int]): Jobs now completed.
            lease_lost (list[int]): Jobs whose token was stale (nothing changed for them).
     """

    completed: list[int]
    lease_lost: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        completed = self.completed



        lease_lost = self.lease_lost




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "completed": completed,
            "lease_lost": lease_lost,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        completed = cast(list[int], d.pop("completed"))


        lease_lost = cast(list[int], d.pop("lease_lost"))


        completions = cls(
            completed=completed,
            lease_lost=lease_lost,
        )


        completions.additional_properties = d
        return completions

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
