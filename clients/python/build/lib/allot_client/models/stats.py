from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.service_health import ServiceHealth
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.allocation_outcomes import AllocationOutcomes
  from ..models.instance_view import InstanceView
  from ..models.job_totals import JobTotals
  from ..models.request_bucket import RequestBucket





T = TypeVar("T", bound="Stats")



@_attrs_define
class Stats:
    """ `GET /v1/stats` answer.

        Attributes:
            backend (str): `postgres` or `sqlite`.
            bucket_ms (int): The width of a bucket of `requests`, ms.
            database (ServiceHealth): A dependency's health.
            instances (list[InstanceView]): The instances serving this database, seen within the last 30 s, by start; `this`
                marks the one that answers.
            problems (list[str]): What keeps this instance from being ready, in words.
            ready (bool): Whether this instance is ready (as `GET /readyz`).
            requests (list[RequestBucket]): The tenant's requests on this instance, one bucket per `bucket_ms`, oldest
                first, the
                current (partial) bucket last: 30 buckets (fewer in the instance's first 5 minutes).
            uptime_s (int): Seconds since this instance started.
            version (str): The allot version of this instance.
            allocations (AllocationOutcomes | None | Unset):
            feed_cursor (int | None | Unset): The cursor of the tenant's newest event (with `events:read`): `after` for a
                reader of
                the feed that wants only what happens from now on.
            feed_lag_ms (int | None | Unset): How long the oldest event has waited for its place in the feed, ms (0: none
                waits;
                with `events:read`; `null` when the database did not answer). Instance-wide: the
                sequencer numbers every tenant's events together, so this is the lag of all.
            jobs (JobTotals | None | Unset):
            redis (None | ServiceHealth | Unset):
     """

    backend: str
    bucket_ms: int
    database: ServiceHealth
    instances: list[InstanceView]
    problems: list[str]
    ready: bool
    requests: list[RequestBucket]
    uptime_s: int
    version: str
    allocations: AllocationOutcomes | None | Unset = UNSET
    feed_cursor: int | None | Unset = UNSET
    feed_lag_ms: int | None | Unset = UNSET
    jobs: JobTotals | None | Unset = UNSET
    redis: None | ServiceHealth | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.allocation_outcomes import AllocationOutcomes # noqa: PLC0415
        from ..models.instance_view import InstanceView # noqa: PLC0415
        from ..models.job_totals import JobTotals # noqa: PLC0415
        from ..models.request_bucket import RequestBucket # noqa: PLC0415
        backend = self.backend

        bucket_ms = self.bucket_ms

        database = self.database.value

        instances = []
        for instances_item_data in self.instances:
            instances_item = instances_item_data.to_dict()
            instances.append(instances_item)



        problems = self.problems



        ready = self.ready

        requests = []
        for requests_item_data in self.requests:
            requests_item = requests_item_data.to_dict()
            requests.append(requests_item)



        uptime_s = self.uptime_s

        version = self.version

        allocations: dict[str, Any] | None | Unset
        if isinstance(self.allocations, Unset):
            allocations = UNSET
        elif isinstance(self.allocations, AllocationOutcomes):
            allocations = self.allocations.to_dict()
        else:
            allocations = self.allocations

        feed_cursor: int | None | Unset
        if isinstance(self.feed_cursor, Unset):
            feed_cursor = UNSET
        else:
            feed_cursor = self.feed_cursor

        feed_lag_ms: int | None | Unset
        if isinstance(self.feed_lag_ms, Unset):
            feed_lag_ms = UNSET
        else:
            feed_lag_ms = self.feed_lag_ms

        jobs: dict[str, Any] | None | Unset
        if isinstance(self.jobs, Unset):
            jobs = UNSET
        elif isinstance(self.jobs, JobTotals):
            jobs = self.jobs.to_dict()
        else:
            jobs = self.jobs

        redis: None | str | Unset
        if isinstance(self.redis, Unset):
            redis = UNSET
        elif isinstance(self.redis, ServiceHealth):
            redis = self.redis.value
        else:
            redis = self.redis


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "backend": backend,
            "bucket_ms": bucket_ms,
            "database": database,
            "instances": instances,
            "problems": problems,
            "ready": ready,
            "requests": requests,
            "uptime_s": uptime_s,
            "version": version,
        })
        if allocations is not UNSET:
            field_dict["allocations"] = allocations
        if feed_cursor is not UNSET:
            field_dict["feed_cursor"] = feed_cursor
        if feed_lag_ms is not UNSET:
            field_dict["feed_lag_ms"] = feed_lag_ms
        if jobs is not UNSET:
            field_dict["jobs"] = jobs
        if redis is not UNSET:
            field_dict["redis"] = redis

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allocation_outcomes import AllocationOutcomes # noqa: PLC0415
        from ..models.instance_view import InstanceView # noqa: PLC0415
        from ..models.job_totals import JobTotals # noqa: PLC0415
        from ..models.request_bucket import RequestBucket # noqa: PLC0415
        d = dict(src_dict)
        backend = d.pop("backend")

        bucket_ms = d.pop("bucket_ms")

        database = ServiceHealth(d.pop("database"))




        instances = []
        _instances = d.pop("instances")
        for instances_item_data in (_instances):
            instances_item = InstanceView.from_dict(instances_item_data)



            instances.append(instances_item)


        problems = cast(list[str], d.pop("problems"))


        ready = d.pop("ready")

        requests = []
        _requests = d.pop("requests")
        for requests_item_data in (_requests):
            requests_item = RequestBucket.from_dict(requests_item_data)



            requests.append(requests_item)


        uptime_s = d.pop("uptime_s")

        version = d.pop("version")

        def _parse_allocations(data: object) -> AllocationOutcomes | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                allocations_type_1 = AllocationOutcomes.from_dict(data)



                return allocations_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AllocationOutcomes | None | Unset, data)

        allocations = _parse_allocations(d.pop("allocations", UNSET))


        def _parse_feed_cursor(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        feed_cursor = _parse_feed_cursor(d.pop("feed_cursor", UNSET))


        def _parse_feed_lag_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        feed_lag_ms = _parse_feed_lag_ms(d.pop("feed_lag_ms", UNSET))


        def _parse_jobs(data: object) -> JobTotals | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                jobs_type_1 = JobTotals.from_dict(data)



                return jobs_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobTotals | None | Unset, data)

        jobs = _parse_jobs(d.pop("jobs", UNSET))


        def _parse_redis(data: object) -> None | ServiceHealth | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                redis_type_1 = ServiceHealth(data)



                return redis_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServiceHealth | Unset, data)

        redis = _parse_redis(d.pop("redis", UNSET))


        stats = cls(
            backend=backend,
            bucket_ms=bucket_ms,
            database=database,
            instances=instances,
            problems=problems,
            ready=ready,
            requests=requests,
            uptime_s=uptime_s,
            version=version,
            allocations=allocations,
            feed_cursor=feed_cursor,
            feed_lag_ms=feed_lag_ms,
            jobs=jobs,
            redis=redis,
        )


        stats.additional_properties = d
        return stats

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
