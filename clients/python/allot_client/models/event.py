from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.event_type import EventType
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.event_data import EventData





T = TypeVar("T", bound="Event")



@_attrs_define
class Event:
    """ One event as the feed serves it (pull, stream and webhook bodies alike).

        Attributes:
            at (datetime.datetime): When the change happened (the store's clock).
            cursor (int): The tenant's gap-free position of this event, from 1.
            data (EventData): The facts. A stock event (every type from the ledger): `sku`, `location` (`null` for
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
            object_ (str): The id of what it happened to: the allocation, hold, transfer, claim, booking or job,
                or the SKU for `sku.*`, `stock.adjusted` and `units.received`.
            type_ (EventType): What happened. The wire name is `object.verb` (`allocation.created`).
     """

    at: datetime.datetime
    cursor: int
    data: EventData
    object_: str
    type_: EventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_data import EventData # noqa: PLC0415
        at = self.at.isoformat()

        cursor = self.cursor

        data = self.data.to_dict()

        object_ = self.object_

        type_ = self.type_.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "cursor": cursor,
            "data": data,
            "object": object_,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_data import EventData # noqa: PLC0415
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        cursor = d.pop("cursor")

        data = EventData.from_dict(d.pop("data"))




        object_ = d.pop("object")

        type_ = EventType(d.pop("type"))




        event = cls(
            at=at,
            cursor=cursor,
            data=data,
            object_=object_,
            type_=type_,
        )


        event.additional_properties = d
        return event

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
