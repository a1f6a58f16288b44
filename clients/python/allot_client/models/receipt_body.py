from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ReceiptBody")



@_attrs_define
class ReceiptBody:
    """ `POST /v1/skus/{sku}/receipts` body: name either the incoming it fulfils (`incoming_id`;
    it arrives at that incoming's location) or the `location`, not both.

        Attributes:
            quantity (int): Units received, 1..=`max_quantity` (with `incoming_id`: at most what is still expected
                of it, else `409 exceeds_incoming`).
            incoming_id (None | str | Unset): The incoming this receipt fulfils, in part or whole.
            location (None | str | Unset): Where they arrive (default `default`); not with `incoming_id`.
            reference (None | str | Unset): An absolute URI naming the document behind it (a delivery note); at most 2048
                bytes.
     """

    quantity: int
    incoming_id: None | str | Unset = UNSET
    location: None | str | Unset = UNSET
    reference: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        incoming_id: None | str | Unset
        if isinstance(self.incoming_id, Unset):
            incoming_id = UNSET
        else:
            incoming_id = self.incoming_id

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
        if incoming_id is not UNSET:
            field_dict["incoming_id"] = incoming_id
        if location is not UNSET:
            field_dict["location"] = location
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        def _parse_incoming_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        incoming_id = _parse_incoming_id(d.pop("incoming_id", UNSET))


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


        receipt_body = cls(
            quantity=quantity,
            incoming_id=incoming_id,
            location=location,
            reference=reference,
        )

        return receipt_body

