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
  from ..models.queue_settings_weights import QueueSettingsWeights
  from ..models.rate import Rate





T = TypeVar("T", bound="QueueSettings")



@_attrs_define
class QueueSettings:
    """ A queue's settings (the answer of `PUT /v1/queues/{queue}`, `GET
    /v1/queues/{queue}/settings` and pause/resume; what the stores keep).

        Attributes:
            fifo_per_key (bool): One at a time per key, in enqueue order.
            keep_completed (bool): Whether completed jobs are kept (false: deleted as they complete).
            paused (bool): Whether claims lease nothing.
            queue (str): The queue.
            events (bool | Unset): Whether the jobs' lifecycle goes to the event feed.
            fair_by (FairBy | None | Unset):
            max_running (int | None | Unset): Most running at once.
            max_running_per_key (int | None | Unset): Most running at once per key.
            rate (None | Rate | Unset):
            weights (QueueSettingsWeights | Unset): Jobs per turn by key, with `fair_by` (a key not named takes 1).
     """

    fifo_per_key: bool
    keep_completed: bool
    paused: bool
    queue: str
    events: bool | Unset = UNSET
    fair_by: FairBy | None | Unset = UNSET
    max_running: int | None | Unset = UNSET
    max_running_per_key: int | None | Unset = UNSET
    rate: None | Rate | Unset = UNSET
    weights: QueueSettingsWeights | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.queue_settings_weights import QueueSettingsWeights # noqa: PLC0415
        from ..models.rate import Rate # noqa: PLC0415
        fifo_per_key = self.fifo_per_key

        keep_completed = self.keep_completed

        paused = self.paused

        queue = self.queue

        events = self.events

        fair_by: None | str | Unset
        if isinstance(self.fair_by, Unset):
            fair_by = UNSET
        elif isinstance(self.fair_by, FairBy):
            fair_by = self.fair_by.value
        else:
            fair_by = self.fair_by

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

        rate: dict[str, Any] | None | Unset
        if isinstance(self.rate, Unset):
            rate = UNSET
        elif isinstance(self.rate, Rate):
            rate = self.rate.to_dict()
        else:
            rate = self.rate

        weights: dict[str, Any] | Unset = UNSET
        if not isinstance(self.weights, Unset):
            weights = self.weights.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "fifo_per_key": fifo_per_key,
            "keep_completed": keep_completed,
            "paused": paused,
            "queue": queue,
        })
        if events is not UNSET:
            field_dict["events"] = events
        if fair_by is not UNSET:
            field_dict["fair_by"] = fair_by
        if max_running is not UNSET:
            field_dict["max_running"] = max_running
        if max_running_per_key is not UNSET:
            field_dict["max_running_per_key"] = max_running_per_key
        if rate is not UNSET:
            field_dict["rate"] = rate
        if weights is not UNSET:
            field_dict["weights"] = weights

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_settings_weights import QueueSettingsWeights # noqa: PLC0415
        from ..models.rate import Rate # noqa: PLC0415
        d = dict(src_dict)
        fifo_per_key = d.pop("fifo_per_key")

        keep_completed = d.pop("keep_completed")

        paused = d.pop("paused")

        queue = d.pop("queue")

        events = d.pop("events", UNSET)

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


        _weights = d.pop("weights", UNSET)
        weights: QueueSettingsWeights | Unset
        if isinstance(_weights,  Unset):
            weights = UNSET
        else:
            weights = QueueSettingsWeights.from_dict(_weights)




        queue_settings = cls(
            fifo_per_key=fifo_per_key,
            keep_completed=keep_completed,
            paused=paused,
            queue=queue,
            events=events,
            fair_by=fair_by,
            max_running=max_running,
            max_running_per_key=max_running_per_key,
            rate=rate,
            weights=weights,
        )


        queue_settings.additional_properties = d
        return queue_settings

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
