from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Unit")



@_attrs_define
class Unit:
    """ A unit as claims return it.

        Attributes:
            id (int): Database id.
            received_at (datetime.datetime): When it arrived (UTC).
            serial (str): Serial number.
            expires_at (datetime.datetime | None | Unset): Best-before date.
            location (None | str | Unset): Location.
            lot (None | str | Unset): Lot.
     """

    id: int
    received_at: datetime.datetime
    serial: str
    expires_at: datetime.datetime | None | Unset = UNSET
    location: None | str | Unset = UNSET
    lot: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        received_at = self.received_at.isoformat()

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


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "received_at": received_at,
            "serial": serial,
        })
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if location is not UNSET:
            field_dict["location"] = location
        if lot is not UNSET:
            field_dict["lot"] = lot

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        received_at = datetime.datetime.fromisoformat(d.pop("received_at"))




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


        unit = cls(
            id=id,
            received_at=received_at,
            serial=serial,
            expires_at=expires_at,
            location=location,
            lot=lot,
        )


        unit.additional_properties = d
        return unit

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
