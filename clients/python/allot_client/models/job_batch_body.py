from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.new_job import NewJob





T = TypeVar("T", bound="JobBatchBody")



@_attrs_define
class JobBatchBody:
    """ `batch` of `POST /v1/queues/{queue}/jobs`.

        Attributes:
            callback (NewJob): One job to enqueue.
            id (str): The batch's id, unique in the tenant (`409 already_exists` while its callback job is
                kept), 1..=`max_unit_field_len` chars.
            queue (None | str | Unset): The callback's queue (this enqueue's queue when absent).
     """

    callback: NewJob
    id: str
    queue: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.new_job import NewJob # noqa: PLC0415
        callback = self.callback.to_dict()

        id = self.id

        queue: None | str | Unset
        if isinstance(self.queue, Unset):
            queue = UNSET
        else:
            queue = self.queue


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "callback": callback,
            "id": id,
        })
        if queue is not UNSET:
            field_dict["queue"] = queue

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.new_job import NewJob # noqa: PLC0415
        d = dict(src_dict)
        callback = NewJob.from_dict(d.pop("callback"))




        id = d.pop("id")

        def _parse_queue(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        queue = _parse_queue(d.pop("queue", UNSET))


        job_batch_body = cls(
            callback=callback,
            id=id,
            queue=queue,
        )

        return job_batch_body

