from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.queue_counts_counts import QueueCountsCounts





T = TypeVar("T", bound="QueueCounts")



@_attrs_define
class QueueCounts:
    """ `GET /v1/queues/{queue}` answer: jobs per state.

        Attributes:
            counts (QueueCountsCounts): Count per state (every state present, zero when none).
            queue (str): The queue.
     """

    counts: QueueCountsCounts
    queue: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.queue_counts_counts import QueueCountsCounts # noqa: PLC0415
        counts = self.counts.to_dict()

        queue = self.queue


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "counts": counts,
            "queue": queue,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_counts_counts import QueueCountsCounts # noqa: PLC0415
        d = dict(src_dict)
        counts = QueueCountsCounts.from_dict(d.pop("counts"))




        queue = d.pop("queue")

        queue_counts = cls(
            counts=counts,
            queue=queue,
        )


        queue_counts.additional_properties = d
        return queue_counts

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
