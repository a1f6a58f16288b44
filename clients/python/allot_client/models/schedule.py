from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.missed import Missed
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Schedule")



@_attrs_define
class Schedule:
    """ A schedule as the API shows it.

        Attributes:
            cron (str): The cron expression.
            job (Any): The job template.
            missed (Missed): What a pass does with ticks that are more than `schedule_grace_ms` late (the service was
                down, or the schedule was paused).
            name (str): Name.
            next_run_at (datetime.datetime): Its next tick.
            paused (bool): Whether passes skip it.
            queue (str): The queue.
            then (list[datetime.datetime]): The next ticks after `next_run_at` (up to 4), to check an expression.
            timezone (str): IANA time zone.
            last_run_at (datetime.datetime | None | Unset): The latest tick a pass enqueued.
     """

    cron: str
    job: Any
    missed: Missed
    name: str
    next_run_at: datetime.datetime
    paused: bool
    queue: str
    then: list[datetime.datetime]
    timezone: str
    last_run_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        cron = self.cron

        job = self.job

        missed = self.missed.value

        name = self.name

        next_run_at = self.next_run_at.isoformat()

        paused = self.paused

        queue = self.queue

        then = []
        for then_item_data in self.then:
            then_item = then_item_data.isoformat()
            then.append(then_item)



        timezone = self.timezone

        last_run_at: None | str | Unset
        if isinstance(self.last_run_at, Unset):
            last_run_at = UNSET
        elif isinstance(self.last_run_at, datetime.datetime):
            last_run_at = self.last_run_at.isoformat()
        else:
            last_run_at = self.last_run_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cron": cron,
            "job": job,
            "missed": missed,
            "name": name,
            "next_run_at": next_run_at,
            "paused": paused,
            "queue": queue,
            "then": then,
            "timezone": timezone,
        })
        if last_run_at is not UNSET:
            field_dict["last_run_at"] = last_run_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cron = d.pop("cron")

        job = d.pop("job")

        missed = Missed(d.pop("missed"))




        name = d.pop("name")

        next_run_at = datetime.datetime.fromisoformat(d.pop("next_run_at"))




        paused = d.pop("paused")

        queue = d.pop("queue")

        then = []
        _then = d.pop("then")
        for then_item_data in (_then):
            then_item = datetime.datetime.fromisoformat(then_item_data)



            then.append(then_item)


        timezone = d.pop("timezone")

        def _parse_last_run_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_run_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_run_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_run_at = _parse_last_run_at(d.pop("last_run_at", UNSET))


        schedule = cls(
            cron=cron,
            job=job,
            missed=missed,
            name=name,
            next_run_at=next_run_at,
            paused=paused,
            queue=queue,
            then=then,
            timezone=timezone,
            last_run_at=last_run_at,
        )


        schedule.additional_properties = d
        return schedule

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
