from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="IncomingBody")



@_attrs_define
class IncomingBody:
    """ `POST /v1/skus/{sku}/incoming` body.

        Attributes:
            quantity (int): Units expected, 1..=`max_quantity`.
            expected_at (datetime.datetime | None | Unset): When they are expected (RFC 3339); informational.
            location (None | str | Unset): Where they will arrive (default `default`); it must exist.
            reference (None | str | Unset): An absolute URI naming the document behind it (at most 2048 bytes).
     """

    quantity: int
    expected_at: datetime.datetime | None | Unset = UNSET
    location: None | str | Unset = UNSET
    reference: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        expected_at: None | str | Unset
        if isinstance(self.expected_at, Unset):
            expected_at = UNSET
        elif isinstance(self.expected_at, datetime.datetime):
            expected_at = self.expected_at.isoformat()
        else:
            expected_at = self.expected_at

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "quantity": quantity,
        })
        if expected_at is not UNSET:
            field_dict["expected_at"] = expected_at
        if location is not UNSET:
            field_dict["location"] = location
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        def _parse_expected_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expected_at_type_0 = datetime.datetime.fromisoformat(data)



                return expected_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expected_at = _parse_expected_at(d.pop("expected_at", UNSET))


        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        incoming_body = cls(
            quantity=quantity,
            expected_at=expected_at,
            location=location,
            reference=reference,
        )

        return incoming_body

