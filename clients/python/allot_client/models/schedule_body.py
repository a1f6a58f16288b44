from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.missed import Missed
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.new_job import NewJob





T = TypeVar("T", bound="ScheduleBody")



@_attrs_define
class ScheduleBody:
    """ `POST /v1/schedules` body.

        Attributes:
            cron (str): 5 fields from minutes (`"0 9 * * MON-FRI"`), or 6 with seconds first (`"*/5 * * * * *"`).
            job (NewJob): One job to enqueue.
            name (str): The schedule's name, unique in the tenant (`[A-Za-z0-9._:-]`, 1..=`max_name_len`).
            queue (str): The queue its jobs go to.
            missed (Missed | None | Unset):
            timezone (None | str | Unset): IANA time zone the expression is read in. Default `UTC`.
     """

    cron: str
    job: NewJob
    name: str
    queue: str
    missed: Missed | None | Unset = UNSET
    timezone: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.new_job import NewJob # noqa: PLC0415
        cron = self.cron

        job = self.job.to_dict()

        name = self.name

        queue = self.queue

        missed: None | str | Unset
        if isinstance(self.missed, Unset):
            missed = UNSET
        elif isinstance(self.missed, Missed):
            missed = self.missed.value
        else:
            missed = self.missed

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "cron": cron,
            "job": job,
            "name": name,
            "queue": queue,
        })
        if missed is not UNSET:
            field_dict["missed"] = missed
        if timezone is not UNSET:
            field_dict["timezone"] = timezone

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.new_job import NewJob # noqa: PLC0415
        d = dict(src_dict)
        cron = d.pop("cron")

        job = NewJob.from_dict(d.pop("job"))




        name = d.pop("name")

        queue = d.pop("queue")

        def _parse_missed(data: object) -> Missed | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                missed_type_1 = Missed(data)



                return missed_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Missed | None | Unset, data)

        missed = _parse_missed(d.pop("missed", UNSET))


        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))


        schedule_body = cls(
            cron=cron,
            job=job,
            name=name,
            queue=queue,
            missed=missed,
            timezone=timezone,
        )

        return schedule_body

