from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="BookingBody")



@_attrs_define
class BookingBody:
    """ `POST /v1/resources/{resource}/bookings` body. Times are RFC 3339 with an offset.

        Attributes:
            end (str): End, exclusive; must be after `start`.
            holder (str): Who books (1..=`max_unit_field_len` chars).
            start (str): Start, inclusive (RFC 3339 with offset, e.g. `2026-03-01T14:00:00+01:00`).
            hold_ttl_ms (int | None | Unset): Make it a tentative (`held`) booking for this many ms.
            metadata (Any | Unset): Free-form JSON kept with the booking.
            quantity (int | None | Unset): How many of the resource's capacity it takes in each slot (default 1; more needs
                a
                resource with slots).
            strategy (None | str | Unset): `exclusion` (default on PostgreSQL), `batched`, `advisory`, `naive` (unsafe
                flag),
                `serialized` (SQLite).
     """

    end: str
    holder: str
    start: str
    hold_ttl_ms: int | None | Unset = UNSET
    metadata: Any | Unset = UNSET
    quantity: int | None | Unset = UNSET
    strategy: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        end = self.end

        holder = self.holder

        start = self.start

        hold_ttl_ms: int | None | Unset
        if isinstance(self.hold_ttl_ms, Unset):
            hold_ttl_ms = UNSET
        else:
            hold_ttl_ms = self.hold_ttl_ms

        metadata = self.metadata

        quantity: int | None | Unset
        if isinstance(self.quantity, Unset):
            quantity = UNSET
        else:
            quantity = self.quantity

        strategy: None | str | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        else:
            strategy = self.strategy


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "end": end,
            "holder": holder,
            "start": start,
        })
        if hold_ttl_ms is not UNSET:
            field_dict["hold_ttl_ms"] = hold_ttl_ms
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if quantity is not UNSET:
            field_dict["quantity"] = quantity
        if strategy is not UNSET:
            field_dict["strategy"] = strategy

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        end = d.pop("end")

        holder = d.pop("holder")

        start = d.pop("start")

        def _parse_hold_ttl_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        hold_ttl_ms = _parse_hold_ttl_ms(d.pop("hold_ttl_ms", UNSET))


        metadata = d.pop("metadata", UNSET)

        def _parse_quantity(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        quantity = _parse_quantity(d.pop("quantity", UNSET))


        def _parse_strategy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        strategy = _parse_strategy(d.pop("strategy", UNSET))


        booking_body = cls(
            end=end,
            holder=holder,
            start=start,
            hold_ttl_ms=hold_ttl_ms,
            metadata=metadata,
            quantity=quantity,
            strategy=strategy,
        )

        return booking_body

