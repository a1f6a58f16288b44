from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.job_batch_made import JobBatchMade





T = TypeVar("T", bound="Enqueued")



@_attrs_define
class Enqueued:
    """ `POST /v1/queues/{queue}/jobs` answer.

        Attributes:
            ids (list[int]): The id of each job, in request order (an existing id for a `unique_key` duplicate).
            batch (JobBatchMade | None | Unset):
     """

    ids: list[int]
    batch: JobBatchMade | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_batch_made import JobBatchMade # noqa: PLC0415
        ids = self.ids



        batch: dict[str, Any] | None | Unset
        if isinstance(self.batch, Unset):
            batch = UNSET
        elif isinstance(self.batch, JobBatchMade):
            batch = self.batch.to_dict()
        else:
            batch = self.batch


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "ids": ids,
        })
        if batch is not UNSET:
            field_dict["batch"] = batch

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_batch_made import JobBatchMade # noqa: PLC0415
        d = dict(src_dict)
        ids = cast(list[int], d.pop("ids"))


        def _parse_batch(data: object) -> JobBatchMade | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                batch_type_1 = JobBatchMade.from_dict(data)



                return batch_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobBatchMade | None | Unset, data)

        batch = _parse_batch(d.pop("batch", UNSET))


        enqueued = cls(
            ids=ids,
            batch=batch,
        )


        enqueued.additional_properties = d
        return enqueued

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
