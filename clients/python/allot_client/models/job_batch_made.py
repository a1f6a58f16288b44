from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="JobBatchMade")



@_attrs_define
class JobBatchMade:
    """ What an enqueue with a batch answers beside the members' ids.

        Attributes:
            callback_id (int): The callback job's id (`GET /v1/jobs/{id}`: `pending` until every member finished).
            id (str): The batch's id.
     """

    callback_id: int
    id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        callback_id = self.callback_id

        id = self.id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "callback_id": callback_id,
            "id": id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        callback_id = d.pop("callback_id")

        id = d.pop("id")

        job_batch_made = cls(
            callback_id=callback_id,
            id=id,
        )


        job_batch_made.additional_properties = d
        return job_batch_made

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
