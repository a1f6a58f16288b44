from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.job_totals_counts import JobTotalsCounts





T = TypeVar("T", bound="JobTotals")



@_attrs_define
class JobTotals:
    """ Jobs by state summed over queues.

        Attributes:
            counts (JobTotalsCounts): Jobs per state, every state present.
            queues (int): Queues summed (at most 1000, by name).
     """

    counts: JobTotalsCounts
    queues: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_totals_counts import JobTotalsCounts # noqa: PLC0415
        counts = self.counts.to_dict()

        queues = self.queues


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "counts": counts,
            "queues": queues,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_totals_counts import JobTotalsCounts # noqa: PLC0415
        d = dict(src_dict)
        counts = JobTotalsCounts.from_dict(d.pop("counts"))




        queues = d.pop("queues")

        job_totals = cls(
            counts=counts,
            queues=queues,
        )


        job_totals.additional_properties = d
        return job_totals

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
