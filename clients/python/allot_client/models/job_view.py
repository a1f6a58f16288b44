from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_state import JobState
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="JobView")



@_attrs_define
class JobView:
    """ A job as listings show it (e.g. the dead letters: `state=discarded`).

        Attributes:
            attempt (int): Attempts made.
            created_at (datetime.datetime): When it was enqueued.
            errors (Any): One entry per failed attempt: `{"attempt", "error", "at"}`.
            id (int): Id.
            max_attempts (int): Attempts allowed.
            metadata (Any): The metadata given at enqueue (`{}` when none).
            payload (Any): Payload.
            priority (int): Priority.
            queue (str): Queue.
            run_at (datetime.datetime): When it may run (next).
            state (JobState): A job's state.
            tags (list[str]): Labels.
            dependency_failure (None | str | Unset): Set when a failed dependency discarded the job: the job whose end did,
                as
                `job 7 discarded` (or `cancelled`); see [`depend`].
            finalized_at (datetime.datetime | None | Unset): When it reached a final state.
            output (Any | Unset): What the job produced (given on `complete`).
            partition_key (None | str | Unset): Key of per-key limits and FIFO order.
            unique_key (None | str | Unset): Dedup key.
     """

    attempt: int
    created_at: datetime.datetime
    errors: Any
    id: int
    max_attempts: int
    metadata: Any
    payload: Any
    priority: int
    queue: str
    run_at: datetime.datetime
    state: JobState
    tags: list[str]
    dependency_failure: None | str | Unset = UNSET
    finalized_at: datetime.datetime | None | Unset = UNSET
    output: Any | Unset = UNSET
    partition_key: None | str | Unset = UNSET
    unique_key: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        created_at = self.created_at.isoformat()

        errors = self.errors

        id = self.id

        max_attempts = self.max_attempts

        metadata = self.metadata

        payload = self.payload

        priority = self.priority

        queue = self.queue

        run_at = self.run_at.isoformat()

        state = self.state.value

        tags = self.tags



        dependency_failure: None | str | Unset
        if isinstance(self.dependency_failure, Unset):
            dependency_failure = UNSET
        else:
            dependency_failure = self.dependency_failure

        finalized_at: None | str | Unset
        if isinstance(self.finalized_at, Unset):
            finalized_at = UNSET
        elif isinstance(self.finalized_at, datetime.datetime):
            finalized_at = self.finalized_at.isoformat()
        else:
            finalized_at = self.finalized_at

        output = self.output

        partition_key: None | str | Unset
        if isinstance(self.partition_key, Unset):
            partition_key = UNSET
        else:
            partition_key = self.partition_key

        unique_key: None | str | Unset
        if isinstance(self.unique_key, Unset):
            unique_key = UNSET
        else:
            unique_key = self.unique_key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempt": attempt,
            "created_at": created_at,
            "errors": errors,
            "id": id,
            "max_attempts": max_attempts,
            "metadata": metadata,
            "payload": payload,
            "priority": priority,
            "queue": queue,
            "run_at": run_at,
            "state": state,
            "tags": tags,
        })
        if dependency_failure is not UNSET:
            field_dict["dependency_failure"] = dependency_failure
        if finalized_at is not UNSET:
            field_dict["finalized_at"] = finalized_at
        if output is not UNSET:
            field_dict["output"] = output
        if partition_key is not UNSET:
            field_dict["partition_key"] = partition_key
        if unique_key is not UNSET:
            field_dict["unique_key"] = unique_key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        errors = d.pop("errors")

        id = d.pop("id")

        max_attempts = d.pop("max_attempts")

        metadata = d.pop("metadata")

        payload = d.pop("payload")

        priority = d.pop("priority")

        queue = d.pop("queue")

        run_at = datetime.datetime.fromisoformat(d.pop("run_at"))




        state = JobState(d.pop("state"))




        tags = cast(list[str], d.pop("tags"))


        def _parse_dependency_failure(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        dependency_failure = _parse_dependency_failure(d.pop("dependency_failure", UNSET))


        def _parse_finalized_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finalized_at_type_0 = datetime.datetime.fromisoformat(data)



                return finalized_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        finalized_at = _parse_finalized_at(d.pop("finalized_at", UNSET))


        output = d.pop("output", UNSET)

        def _parse_partition_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        partition_key = _parse_partition_key(d.pop("partition_key", UNSET))


        def _parse_unique_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        unique_key = _parse_unique_key(d.pop("unique_key", UNSET))


        job_view = cls(
            attempt=attempt,
            created_at=created_at,
            errors=errors,
            id=id,
            max_attempts=max_attempts,
            metadata=metadata,
            payload=payload,
            priority=priority,
            queue=queue,
            run_at=run_at,
            state=state,
            tags=tags,
            dependency_failure=dependency_failure,
            finalized_at=finalized_at,
            output=output,
            partition_key=partition_key,
            unique_key=unique_key,
        )


        job_view.additional_properties = d
        return job_view

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
