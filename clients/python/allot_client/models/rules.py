from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.closed import Closed





T = TypeVar("T", bound="Rules")



@_attrs_define
class Rules:
    """ A resource's rules, validated.

        Attributes:
            buffer_ms (int | None | Unset): Buffer, ms.
            closed (list[Closed] | Unset): Closed ranges.
            closed_to_arrival (list[str] | Unset): Closed to arrival.
            closed_to_departure (list[str] | Unset): Closed to departure.
            horizon_ms (int | None | Unset): Horizon, ms.
            lead_time_ms (int | None | Unset): Lead time, ms.
            max_slots (int | None | Unset): Most slots.
            min_slots (int | None | Unset): Fewest slots.
     """

    buffer_ms: int | None | Unset = UNSET
    closed: list[Closed] | Unset = UNSET
    closed_to_arrival: list[str] | Unset = UNSET
    closed_to_departure: list[str] | Unset = UNSET
    horizon_ms: int | None | Unset = UNSET
    lead_time_ms: int | None | Unset = UNSET
    max_slots: int | None | Unset = UNSET
    min_slots: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.closed import Closed # noqa: PLC0415
        buffer_ms: int | None | Unset
        if isinstance(self.buffer_ms, Unset):
            buffer_ms = UNSET
        else:
            buffer_ms = self.buffer_ms

        closed: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.closed, Unset):
            closed = []
            for closed_item_data in self.closed:
                closed_item = closed_item_data.to_dict()
                closed.append(closed_item)



        closed_to_arrival: list[str] | Unset = UNSET
        if not isinstance(self.closed_to_arrival, Unset):
            closed_to_arrival = self.closed_to_arrival



        closed_to_departure: list[str] | Unset = UNSET
        if not isinstance(self.closed_to_departure, Unset):
            closed_to_departure = self.closed_to_departure



        horizon_ms: int | None | Unset
        if isinstance(self.horizon_ms, Unset):
            horizon_ms = UNSET
        else:
            horizon_ms = self.horizon_ms

        lead_time_ms: int | None | Unset
        if isinstance(self.lead_time_ms, Unset):
            lead_time_ms = UNSET
        else:
            lead_time_ms = self.lead_time_ms

        max_slots: int | None | Unset
        if isinstance(self.max_slots, Unset):
            max_slots = UNSET
        else:
            max_slots = self.max_slots

        min_slots: int | None | Unset
        if isinstance(self.min_slots, Unset):
            min_slots = UNSET
        else:
            min_slots = self.min_slots


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if buffer_ms is not UNSET:
            field_dict["buffer_ms"] = buffer_ms
        if closed is not UNSET:
            field_dict["closed"] = closed
        if closed_to_arrival is not UNSET:
            field_dict["closed_to_arrival"] = closed_to_arrival
        if closed_to_departure is not UNSET:
            field_dict["closed_to_departure"] = closed_to_departure
        if horizon_ms is not UNSET:
            field_dict["horizon_ms"] = horizon_ms
        if lead_time_ms is not UNSET:
            field_dict["lead_time_ms"] = lead_time_ms
        if max_slots is not UNSET:
            field_dict["max_slots"] = max_slots
        if min_slots is not UNSET:
            field_dict["min_slots"] = min_slots

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.closed import Closed # noqa: PLC0415
        d = dict(src_dict)
        def _parse_buffer_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        buffer_ms = _parse_buffer_ms(d.pop("buffer_ms", UNSET))


        _closed = d.pop("closed", UNSET)
        closed: list[Closed] | Unset = UNSET
        if _closed is not UNSET:
            closed = []
            for closed_item_data in _closed:
                closed_item = Closed.from_dict(closed_item_data)



                closed.append(closed_item)


        closed_to_arrival = cast(list[str], d.pop("closed_to_arrival", UNSET))


        closed_to_departure = cast(list[str], d.pop("closed_to_departure", UNSET))


        def _parse_horizon_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        horizon_ms = _parse_horizon_ms(d.pop("horizon_ms", UNSET))


        def _parse_lead_time_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lead_time_ms = _parse_lead_time_ms(d.pop("lead_time_ms", UNSET))


        def _parse_max_slots(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_slots = _parse_max_slots(d.pop("max_slots", UNSET))


        def _parse_min_slots(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        min_slots = _parse_min_slots(d.pop("min_slots", UNSET))


        rules = cls(
            buffer_ms=buffer_ms,
            closed=closed,
            closed_to_arrival=closed_to_arrival,
            closed_to_departure=closed_to_departure,
            horizon_ms=horizon_ms,
            lead_time_ms=lead_time_ms,
            max_slots=max_slots,
            min_slots=min_slots,
        )


        rules.additional_properties = d
        return rules

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
