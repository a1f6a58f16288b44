from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.rate import Rate





T = TypeVar("T", bound="QueueSettingsBody")



@_attrs_define
class QueueSettingsBody:
    """ `PUT /v1/queues/{queue}` body: the queue's settings, replaced whole (a field left out is
    its default: not paused, no limit, no FIFO, completed jobs kept).

        Attributes:
            fifo_per_key (bool | None | Unset): Jobs of one `partition_key` run one at a time in enqueue (id) order; a retry
                keeps its
                place. Default false.
            keep_completed (bool | None | Unset): Keep completed jobs until the server's job retention prunes them. Default
                true;
                false deletes a job in the statement that completes it (as graphile-worker always
                does, Que by default, BullMQ's `removeOnComplete`): its id then answers 404 (a second
                completion too; a batch completion lists it under `lease_lost`) and the queue's
                `completed` count stays put. Failed, discarded and cancelled jobs are kept either way.
            max_running (int | None | Unset): Most jobs of the queue running at once, 1..=`max_queue_limit`.
            max_running_per_key (int | None | Unset): Most jobs of one `partition_key` running at once,
                1..=`max_queue_limit`.
            paused (bool | None | Unset): A paused queue leases nothing; enqueues still go in. Default false.
            rate (None | Rate | Unset):
     """

    fifo_per_key: bool | None | Unset = UNSET
    keep_completed: bool | None | Unset = UNSET
    max_running: int | None | Unset = UNSET
    max_running_per_key: int | None | Unset = UNSET
    paused: bool | None | Unset = UNSET
    rate: None | Rate | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.rate import Rate # noqa: PLC0415
        fifo_per_key: bool | None | Unset
        if isinstance(self.fifo_per_key, Unset):
            fifo_per_key = UNSET
        else:
            fifo_per_key = self.fifo_per_key

        keep_completed: bool | None | Unset
        if isinstance(self.keep_completed, Unset):
            keep_completed = UNSET
        else:
            keep_completed = self.keep_completed

        max_running: int | None | Unset
        if isinstance(self.max_running, Unset):
            max_running = UNSET
        else:
            max_running = self.max_running

        max_running_per_key: int | None | Unset
        if isinstance(self.max_running_per_key, Unset):
            max_running_per_key = UNSET
        else:
            max_running_per_key = self.max_running_per_key

        paused: bool | None | Unset
        if isinstance(self.paused, Unset):
            paused = UNSET
        else:
            paused = self.paused

        rate: dict[str, Any] | None | Unset
        if isinstance(self.rate, Unset):
            rate = UNSET
        elif isinstance(self.rate, Rate):
            rate = self.rate.to_dict()
        else:
            rate = self.rate


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if fifo_per_key is not UNSET:
            field_dict["fifo_per_key"] = fifo_per_key
        if keep_completed is not UNSET:
            field_dict["keep_completed"] = keep_completed
        if max_running is not UNSET:
            field_dict["max_running"] = max_running
        if max_running_per_key is not UNSET:
            field_dict["max_running_per_key"] = max_running_per_key
        if paused is not UNSET:
            field_dict["paused"] = paused
        if rate is not UNSET:
            field_dict["rate"] = rate

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rate import Rate # noqa: PLC0415
        d = dict(src_dict)
        def _parse_fifo_per_key(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        fifo_per_key = _parse_fifo_per_key(d.pop("fifo_per_key", UNSET))


        def _parse_keep_completed(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        keep_completed = _parse_keep_completed(d.pop("keep_completed", UNSET))


        def _parse_max_running(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_running = _parse_max_running(d.pop("max_running", UNSET))


        def _parse_max_running_per_key(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_running_per_key = _parse_max_running_per_key(d.pop("max_running_per_key", UNSET))


        def _parse_paused(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        paused = _parse_paused(d.pop("paused", UNSET))


        def _parse_rate(data: object) -> None | Rate | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rate_type_1 = Rate.from_dict(data)



                return rate_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Rate | Unset, data)

        rate = _parse_rate(d.pop("rate", UNSET))


        queue_settings_body = cls(
            fifo_per_key=fifo_per_key,
            keep_completed=keep_completed,
            max_running=max_running,
            max_running_per_key=max_running_per_key,
            paused=paused,
            rate=rate,
        )

        return queue_settings_body

