from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.closed_body import ClosedBody





T = TypeVar("T", bound="RulesBody")



@_attrs_define
class RulesBody:
    """ `rules` of a resource put.

        Attributes:
            buffer_ms (int | None | Unset): The least time between two bookings (capacity-1 resources), ms.
            closed (list[ClosedBody] | None | Unset): Ranges nothing may overlap.
            closed_to_arrival (list[str] | None | Unset): Weekdays (`mon`..`sun`) or dates (`2026-12-24`) on which no
                booking may start.
            closed_to_departure (list[str] | None | Unset): Weekdays or dates on which no booking may end.
            horizon_ms (int | None | Unset): A booking starts at most this long after it is made, ms.
            lead_time_ms (int | None | Unset): A booking starts at least this long after it is made, ms.
            max_slots (int | None | Unset): The most slots a booking may touch.
            min_slots (int | None | Unset): The fewest slots a booking may touch.
     """

    buffer_ms: int | None | Unset = UNSET
    closed: list[ClosedBody] | None | Unset = UNSET
    closed_to_arrival: list[str] | None | Unset = UNSET
    closed_to_departure: list[str] | None | Unset = UNSET
    horizon_ms: int | None | Unset = UNSET
    lead_time_ms: int | None | Unset = UNSET
    max_slots: int | None | Unset = UNSET
    min_slots: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.closed_body import ClosedBody # noqa: PLC0415
        buffer_ms: int | None | Unset
        if isinstance(self.buffer_ms, Unset):
            buffer_ms = UNSET
        else:
            buffer_ms = self.buffer_ms

        closed: list[dict[str, Any]] | None | Unset
        if isinstance(self.closed, Unset):
            closed = UNSET
        elif isinstance(self.closed, list):
            closed = []
            for closed_type_0_item_data in self.closed:
                closed_type_0_item = closed_type_0_item_data.to_dict()
                closed.append(closed_type_0_item)


        else:
            closed = self.closed

        closed_to_arrival: list[str] | None | Unset
        if isinstance(self.closed_to_arrival, Unset):
            closed_to_arrival = UNSET
        elif isinstance(self.closed_to_arrival, list):
            closed_to_arrival = self.closed_to_arrival


        else:
            closed_to_arrival = self.closed_to_arrival

        closed_to_departure: list[str] | None | Unset
        if isinstance(self.closed_to_departure, Unset):
            closed_to_departure = UNSET
        elif isinstance(self.closed_to_departure, list):
            closed_to_departure = self.closed_to_departure


        else:
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
        from ..models.closed_body import ClosedBody # noqa: PLC0415
        d = dict(src_dict)
        def _parse_buffer_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        buffer_ms = _parse_buffer_ms(d.pop("buffer_ms", UNSET))


        def _parse_closed(data: object) -> list[ClosedBody] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                closed_type_0 = []
                _closed_type_0 = data
                for closed_type_0_item_data in (_closed_type_0):
                    closed_type_0_item = ClosedBody.from_dict(closed_type_0_item_data)



                    closed_type_0.append(closed_type_0_item)

                return closed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ClosedBody] | None | Unset, data)

        closed = _parse_closed(d.pop("closed", UNSET))


        def _parse_closed_to_arrival(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                closed_to_arrival_type_0 = cast(list[str], data)

                return closed_to_arrival_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        closed_to_arrival = _parse_closed_to_arrival(d.pop("closed_to_arrival", UNSET))


        def _parse_closed_to_departure(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                closed_to_departure_type_0 = cast(list[str], data)

                return closed_to_departure_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        closed_to_departure = _parse_closed_to_departure(d.pop("closed_to_departure", UNSET))


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


        rules_body = cls(
            buffer_ms=buffer_ms,
            closed=closed,
            closed_to_arrival=closed_to_arrival,
            closed_to_departure=closed_to_departure,
            horizon_ms=horizon_ms,
            lead_time_ms=lead_time_ms,
            max_slots=max_slots,
            min_slots=min_slots,
        )

        return rules_body

