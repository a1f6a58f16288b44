from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_state import JobState
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="BulkFilter")



@_attrs_define
class BulkFilter:
    """ Which jobs of the queue a bulk call matches (every field optional: all match).

        Attributes:
            partition_key (None | str | Unset): Only jobs of this partition key.
            state (JobState | None | Unset):
            tag (None | str | Unset): Only jobs with this tag.
     """

    partition_key: None | str | Unset = UNSET
    state: JobState | None | Unset = UNSET
    tag: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        partition_key: None | str | Unset
        if isinstance(self.partition_key, Unset):
            partition_key = UNSET
        else:
            partition_key = self.partition_key

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, JobState):
            state = self.state.value
        else:
            state = self.state

        tag: None | str | Unset
        if isinstance(self.tag, Unset):
            tag = UNSET
        else:
            tag = self.tag


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if partition_key is not UNSET:
            field_dict["partition_key"] = partition_key
        if state is not UNSET:
            field_dict["state"] = state
        if tag is not UNSET:
            field_dict["tag"] = tag

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_partition_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        partition_key = _parse_partition_key(d.pop("partition_key", UNSET))


        def _parse_state(data: object) -> JobState | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_type_1 = JobState(data)



                return state_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobState | None | Unset, data)

        state = _parse_state(d.pop("state", UNSET))


        def _parse_tag(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tag = _parse_tag(d.pop("tag", UNSET))


        bulk_filter = cls(
            partition_key=partition_key,
            state=state,
            tag=tag,
        )

        return bulk_filter

