from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="EventData")



@_attrs_define
class EventData:
    """ The facts. A stock event (every type from the ledger): `sku`, `location` (`null` for
    unit-tracked SKUs), `delta` and `held_delta` (the entry's change of on hand and of
    held), `kind` (the ledger kind), `ref`, `reason` (a stock reason: `sold`, `shrinkage`, …) and
    `reference` (the document URI the request named, or `null`), `before`, `after`,
    `location_before`, `location_after` (each `{on_hand, held, available}` of the SKU or of
    the entry's location; `null` for unit-tracked SKUs), `on_hand`, `held` and `available` after the
    change (lazily expired holds count as held until their expiry is written, which every
    write of the SKU does first; `null` for unit-tracked SKUs, whose totals would count
    their pool on every claim), `actor`, `ledger_id`. `sku.*`: `sku`, `location` (`null`:
    the SKU as a whole), `available`, and `low_stock_below` for `sku.low_stock`. Bookings:
    `id`, `resource`, `start`, `end`, `holder`, `status`, `quantity` (and `from`: the old
    `start`, `end` and `quantity` of `booking.rescheduled`). `job.discarded`: `id`, `queue`,
    `attempt`, `max_attempts`. `job.completed`, `job.cancelled`: `id`, `queue`, `attempt`.
    `job.failed`: `id`, `queue`, `attempt`, `max_attempts`, `error`, `retry_at` (`null` when
    the job was discarded). `batch.completed`: `id` (the batch's), `callback_id`, `queue`,
    `jobs`, `completed`, `discarded`, `cancelled`. `hold.extended`: `id`, `expires_at`. `hold.created`,
    `hold.confirmed`, `hold.released`, `hold.expired`: `id`, `kind` (`stock`, `units`,
    `mixed`), `status`, `expires_at`, `lines` (its stock and unit lines as the hold answers
    them: `sku`, `quantity`, `from`) and `bookings` (its booking lines: `id`, `resource`,
    `start`, `end`, `quantity`; `[]` without any).

     """

    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        
        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event_data = cls(
        )


        event_data.additional_properties = d
        return event_data

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
