from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="JobViolation")



@_attrs_define
class JobViolation:
    """ One job's broken rule.

        Attributes:
            id (int): The job's id.
            problem (str): What is wrong, in words.
            queue (str): Its queue.
            tenant (str): The tenant the job belongs to.
     """

    id: int
    problem: str
    queue: str
    tenant: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        problem = self.problem

        queue = self.queue

        tenant = self.tenant


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "problem": problem,
            "queue": queue,
            "tenant": tenant,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        problem = d.pop("problem")

        queue = d.pop("queue")

        tenant = d.pop("tenant")

        job_violation = cls(
            id=id,
            problem=problem,
            queue=queue,
            tenant=tenant,
        )


        job_violation.additional_properties = d
        return job_violation

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
