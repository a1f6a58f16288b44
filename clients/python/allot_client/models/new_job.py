from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.on_failed_dependency import OnFailedDependency
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="NewJob")



@_attrs_define
class NewJob:
    """ One job to enqueue.

        Attributes:
            depends_on (list[int] | None | Unset): Ids of jobs of the tenant (any queue) this one waits for: at most
                `max_job_dependencies`, each an existing job (`422 unknown_dependency` otherwise). The
                job is `pending` until every one completed (see [`depend`]).
            max_attempts (int | None | Unset): Attempts before the job is discarded, 1..=`max_job_attempts`. Default 25.
            metadata (Any | Unset): Any JSON object kept with the job, at most `max_metadata_bytes` serialized.
            on_failed_dependency (None | OnFailedDependency | Unset):
            partition_key (None | str | Unset): The key the queue's per-key limits and FIFO order apply to (a customer, an
                account),
                1..=`max_unit_field_len` chars; a job without one is limited only queue-wide.
            payload (Any | Unset): Any JSON, at most `max_payload_bytes` serialized.
            priority (int | None | Unset): 1..=4, lower runs first. Default 1.
            run_at (None | str | Unset): Not before this time (RFC 3339 with offset); now when absent.
            tags (list[str] | None | Unset): Labels to filter listings by: at most `max_job_tags`, each
                1..=`max_unit_field_len`
                chars.
            unique_key (None | str | Unset): While a job with this key is unfinished in the queue, enqueuing another returns
                it.
     """

    depends_on: list[int] | None | Unset = UNSET
    max_attempts: int | None | Unset = UNSET
    metadata: Any | Unset = UNSET
    on_failed_dependency: None | OnFailedDependency | Unset = UNSET
    partition_key: None | str | Unset = UNSET
    payload: Any | Unset = UNSET
    priority: int | None | Unset = UNSET
    run_at: None | str | Unset = UNSET
    tags: list[str] | None | Unset = UNSET
    unique_key: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        depends_on: list[int] | None | Unset
        if isinstance(self.depends_on, Unset):
            depends_on = UNSET
        elif isinstance(self.depends_on, list):
            depends_on = self.depends_on


        else:
            depends_on = self.depends_on

        max_attempts: int | None | Unset
        if isinstance(self.max_attempts, Unset):
            max_attempts = UNSET
        else:
            max_attempts = self.max_attempts

        metadata = self.metadata

        on_failed_dependency: None | str | Unset
        if isinstance(self.on_failed_dependency, Unset):
            on_failed_dependency = UNSET
        elif isinstance(self.on_failed_dependency, OnFailedDependency):
            on_failed_dependency = self.on_failed_dependency.value
        else:
            on_failed_dependency = self.on_failed_dependency

        partition_key: None | str | Unset
        if isinstance(self.partition_key, Unset):
            partition_key = UNSET
        else:
            partition_key = self.partition_key

        payload = self.payload

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority

        run_at: None | str | Unset
        if isinstance(self.run_at, Unset):
            run_at = UNSET
        else:
            run_at = self.run_at

        tags: list[str] | None | Unset
        if isinstance(self.tags, Unset):
            tags = UNSET
        elif isinstance(self.tags, list):
            tags = self.tags


        else:
            tags = self.tags

        unique_key: None | str | Unset
        if isinstance(self.unique_key, Unset):
            unique_key = UNSET
        else:
            unique_key = self.unique_key


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if depends_on is not UNSET:
            field_dict["depends_on"] = depends_on
        if max_attempts is not UNSET:
            field_dict["max_attempts"] = max_attempts
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if on_failed_dependency is not UNSET:
            field_dict["on_failed_dependency"] = on_failed_dependency
        if partition_key is not UNSET:
            field_dict["partition_key"] = partition_key
        if payload is not UNSET:
            field_dict["payload"] = payload
        if priority is not UNSET:
            field_dict["priority"] = priority
        if run_at is not UNSET:
            field_dict["run_at"] = run_at
        if tags is not UNSET:
            field_dict["tags"] = tags
        if unique_key is not UNSET:
            field_dict["unique_key"] = unique_key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_depends_on(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                depends_on_type_0 = cast(list[int], data)

                return depends_on_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        depends_on = _parse_depends_on(d.pop("depends_on", UNSET))


        def _parse_max_attempts(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_attempts = _parse_max_attempts(d.pop("max_attempts", UNSET))


        metadata = d.pop("metadata", UNSET)

        def _parse_on_failed_dependency(data: object) -> None | OnFailedDependency | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                on_failed_dependency_type_1 = OnFailedDependency(data)



                return on_failed_dependency_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OnFailedDependency | Unset, data)

        on_failed_dependency = _parse_on_failed_dependency(d.pop("on_failed_dependency", UNSET))


        def _parse_partition_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        partition_key = _parse_partition_key(d.pop("partition_key", UNSET))


        payload = d.pop("payload", UNSET)

        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        priority = _parse_priority(d.pop("priority", UNSET))


        def _parse_run_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        run_at = _parse_run_at(d.pop("run_at", UNSET))


        def _parse_tags(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tags_type_0 = cast(list[str], data)

                return tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        tags = _parse_tags(d.pop("tags", UNSET))


        def _parse_unique_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        unique_key = _parse_unique_key(d.pop("unique_key", UNSET))


        new_job = cls(
            depends_on=depends_on,
            max_attempts=max_attempts,
            metadata=metadata,
            on_failed_dependency=on_failed_dependency,
            partition_key=partition_key,
            payload=payload,
            priority=priority,
            run_at=run_at,
            tags=tags,
            unique_key=unique_key,
        )

        return new_job

