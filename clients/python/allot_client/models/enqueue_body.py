from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.job_batch_body import JobBatchBody
  from ..models.new_job import NewJob





T = TypeVar("T", bound="EnqueueBody")



@_attrs_define
class EnqueueBody:
    """ `POST /v1/queues/{queue}/jobs` body.

        Attributes:
            jobs (list[NewJob]): 1..=`max_batch_insert` jobs.
            batch (JobBatchBody | None | Unset):
     """

    jobs: list[NewJob]
    batch: JobBatchBody | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_batch_body import JobBatchBody # noqa: PLC0415
        from ..models.new_job import NewJob # noqa: PLC0415
        jobs = []
        for jobs_item_data in self.jobs:
            jobs_item = jobs_item_data.to_dict()
            jobs.append(jobs_item)



        batch: dict[str, Any] | None | Unset
        if isinstance(self.batch, Unset):
            batch = UNSET
        elif isinstance(self.batch, JobBatchBody):
            batch = self.batch.to_dict()
        else:
            batch = self.batch


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobs": jobs,
        })
        if batch is not UNSET:
            field_dict["batch"] = batch

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_batch_body import JobBatchBody # noqa: PLC0415
        from ..models.new_job import NewJob # noqa: PLC0415
        d = dict(src_dict)
        jobs = []
        _jobs = d.pop("jobs")
        for jobs_item_data in (_jobs):
            jobs_item = NewJob.from_dict(jobs_item_data)



            jobs.append(jobs_item)


        def _parse_batch(data: object) -> JobBatchBody | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                batch_type_1 = JobBatchBody.from_dict(data)



                return batch_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobBatchBody | None | Unset, data)

        batch = _parse_batch(d.pop("batch", UNSET))


        enqueue_body = cls(
            jobs=jobs,
            batch=batch,
        )

        return enqueue_body

