from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.fair_by import FairBy
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.queue_settings_body_weights_type_0 import QueueSettingsBodyWeightsType0
  from ..models.rate import Rate





T = TypeVar("T", bound="QueueSettingsBody")



@_attrs_define
class QueueSettingsBody:
    """ `PUT /v1/queues/{queue}` body: the queue's settings, replaced whole (a field left out is
    its default: not paused, no limit, no FIFO, completed jobs kept).

        Attributes:
            events (bool | None | Unset): Write the lifecycle of the queue's jobs to the event feed (and so to webhooks):
                `job.completed`, `job.failed` (each failed attempt, with its error), `job.cancelled`,
                and `batch.completed` for a batch whose callback is in this queue. Default false, so
                that a busy queue does not flood the feed (`job.discarded` is written either way).
            fair_by (FairBy | None | Unset):
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
            weights (None | QueueSettingsBodyWeightsType0 | Unset): Jobs a key's turn takes while the queue has `fair_by`,
                1..=1000 (`MAX_FAIR_WEIGHT`),
                by key (at most 1000 keys, each a valid `partition_key`); a key not named takes 1, as
                do the jobs without a key. Kept as put when the queue is not fair (then unused).
     """

    events: bool | None | Unset = UNSET
    fair_by: FairBy | None | Unset = UNSET
    fifo_per_key: bool | None | Unset = UNSET
    keep_completed: bool | None | Unset = UNSET
    max_running: int | None | Unset = UNSET
    max_running_per_key: int | None | Unset = UNSET
    paused: bool | None | Unset = UNSET
    rate: None | Rate | Unset = UNSET
    weights: None | QueueSettingsBodyWeightsType0 | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.queue_settings_body_weights_type_0 import QueueSettingsBodyWeightsType0 # noqa: PLC0415
        from ..models.rate import Rate # noqa: PLC0415
        events: bool | None | Unset
        if isinstance(self.events, Unset):
            events = UNSET
        else:
            events = self.events

        fair_by: None | str | Unset
        if isinstance(self.fair_by, Unset):
            fair_by = UNSET
        elif isinstance(self.fair_by, FairBy):
            fair_by = self.fair_by.value
        else:
            fair_by = self.fair_by

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

        weights: dict[str, Any] | None | Unset
        if isinstance(self.weights, Unset):
            weights = UNSET
        elif isinstance(self.weights, QueueSettingsBodyWeightsType0):
            weights = self.weights.to_dict()
        else:
            weights = self.weights


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if events is not UNSET:
            field_dict["events"] = events
        if fair_by is not UNSET:
            field_dict["fair_by"] = fair_by
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
        if weights is not UNSET:
            field_dict["weights"] = weights

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_settings_body_weights_type_0 import QueueSettingsBodyWeightsType0 # noqa: PLC0415
        from ..models.rate import Rate # noqa: PLC0415
        d = dict(src_dict)
        def _parse_events(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        events = _parse_events(d.pop("events", UNSET))


        def _parse_fair_by(data: object) -> FairBy | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                fair_by_type_1 = FairBy(data)



                return fair_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FairBy | None | Unset, data)

        fair_by = _parse_fair_by(d.pop("fair_by", UNSET))


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


        def _parse_weights(data: object) -> None | QueueSettingsBodyWeightsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                weights_type_0 = QueueSettingsBodyWeightsType0.from_dict(data)



                return weights_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QueueSettingsBodyWeightsType0 | Unset, data)

        weights = _parse_weights(d.pop("weights", UNSET))


        queue_settings_body = cls(
            events=events,
            fair_by=fair_by,
            fifo_per_key=fifo_per_key,
            keep_completed=keep_completed,
            max_running=max_running,
            max_running_per_key=max_running_per_key,
            paused=paused,
            rate=rate,
            weights=weights,
        )

        return queue_settings_body

