from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="NewUnit")



@_attrs_define
class NewUnit:
    """ One unit to receive, as `POST /v1/skus/{sku}/units` takes it.

        Attributes:
            serial (str): Serial number, unique per SKU.
            expires_at (datetime.datetime | None | Unset): Best-before date, if any.
            location (None | str | Unset): Storage location.
            lot (None | str | Unset): Lot / batch.
            received_at (datetime.datetime | None | Unset): When it arrived (RFC 3339 with offset); now when absent.
     """

    serial: str
    expires_at: datetime.datetime | None | Unset = UNSET
    location: None | str | Unset = UNSET
    lot: None | str | Unset = UNSET
    received_at: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        serial = self.serial

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        lot: None | str | Unset
        if isinstance(self.lot, Unset):
            lot = UNSET
        else:
            lot = self.lot

        received_at: None | str | Unset
        if isinstance(self.received_at, Unset):
            received_at = UNSET
        elif isinstance(self.received_at, datetime.datetime):
            received_at = self.received_at.isoformat()
        else:
            received_at = self.received_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "serial": serial,
        })
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if location is not UNSET:
            field_dict["location"] = location
        if lot is not UNSET:
            field_dict["lot"] = lot
        if received_at is not UNSET:
            field_dict["received_at"] = received_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        serial = d.pop("serial")

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


        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_lot(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        lot = _parse_lot(d.pop("lot", UNSET))


        def _parse_received_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                received_at_type_0 = datetime.datetime.fromisoformat(data)



                return received_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        received_at = _parse_received_at(d.pop("received_at", UNSET))


        new_unit = cls(
            serial=serial,
            expires_at=expires_at,
            location=location,
            lot=lot,
            received_at=received_at,
        )

        return new_unit

