from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.booking_status import BookingStatus
from ..models.booking_strategy import BookingStrategy
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Booking")



@_attrs_define
class Booking:
    """ A booking as the API returns it.

        Attributes:
            created_at (datetime.datetime): When it was made.
            end (datetime.datetime): End (UTC), exclusive.
            holder (str): Holder.
            id (str): Id (UUID v4 text).
            quantity (int): How many of the resource's capacity it takes in each slot.
            resource (str): The resource.
            start (datetime.datetime): Start (UTC), inclusive.
            status (BookingStatus): A booking's life cycle. `confirmed` and (unexpired) `held` block their range.
            strategy (BookingStrategy): How a booking is protected against overlaps. Sent as its wire name.
            expires_at (datetime.datetime | None | Unset): When a held booking lapses.
            hold_id (None | str | Unset): The hold whose booking line it is: it is confirmed, released, extended and expires
                with that hold, and only through it (the booking's own endpoints refuse it, `422
                held_by_hold`).
            metadata (Any | Unset): Metadata, if any.
     """

    created_at: datetime.datetime
    end: datetime.datetime
    holder: str
    id: str
    quantity: int
    resource: str
    start: datetime.datetime
    status: BookingStatus
    strategy: BookingStrategy
    expires_at: datetime.datetime | None | Unset = UNSET
    hold_id: None | str | Unset = UNSET
    metadata: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        end = self.end.isoformat()

        holder = self.holder

        id = self.id

        quantity = self.quantity

        resource = self.resource

        start = self.start.isoformat()

        status = self.status.value

        strategy = self.strategy.value

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        hold_id: None | str | Unset
        if isinstance(self.hold_id, Unset):
            hold_id = UNSET
        else:
            hold_id = self.hold_id

        metadata = self.metadata


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "end": end,
            "holder": holder,
            "id": id,
            "quantity": quantity,
            "resource": resource,
            "start": start,
            "status": status,
            "strategy": strategy,
        })
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if hold_id is not UNSET:
            field_dict["hold_id"] = hold_id
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        end = datetime.datetime.fromisoformat(d.pop("end"))




        holder = d.pop("holder")

        id = d.pop("id")

        quantity = d.pop("quantity")

        resource = d.pop("resource")

        start = datetime.datetime.fromisoformat(d.pop("start"))




        status = BookingStatus(d.pop("status"))




        strategy = BookingStrategy(d.pop("strategy"))




        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))


        def _parse_hold_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hold_id = _parse_hold_id(d.pop("hold_id", UNSET))


        metadata = d.pop("metadata", UNSET)

        booking = cls(
            created_at=created_at,
            end=end,
            holder=holder,
            id=id,
            quantity=quantity,
            resource=resource,
            start=start,
            status=status,
            strategy=strategy,
            expires_at=expires_at,
            hold_id=hold_id,
            metadata=metadata,
        )


        booking.additional_properties = d
        return booking

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
