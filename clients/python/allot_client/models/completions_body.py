from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.completion import Completion





T = TypeVar("T", bound="CompletionsBody")



@_attrs_define
class CompletionsBody:
    """ `POST /v1/queues/{queue}/completions` body.

        Attributes:
            jobs (list[Completion]): 1..=`max_batch_insert` completions; each succeeds or is `lease_lost` on its own.
     """

    jobs: list[Completion]





    def to_dict(self) -> dict[str, Any]:
        from ..models.completion import Completion # noqa: PLC0415
        jobs = []
        for jobs_item_data in self.jobs:
            jobs_item = jobs_item_data.to_dict()
            jobs.append(jobs_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobs": jobs,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.completion import Completion # noqa: PLC0415
        d = dict(src_dict)
        jobs = []
        _jobs = d.pop("jobs")
        for jobs_item_data in (_jobs):
            jobs_item = Completion.from_dict(jobs_item_data)



            jobs.append(jobs_item)


        completions_body = cls(
            jobs=jobs,
        )

        return completions_body

