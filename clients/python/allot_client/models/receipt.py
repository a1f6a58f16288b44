from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Receipt")



@_attrs_define
class Receipt:
    """ A receipt: a validated request, and (as answered) the receipt made, its location filled
    in from the incoming it names.

        Attributes:
            id (str): Server-generated id (UUIDv7 text), the `ref` of its `received` ledger entry.
            quantity (int): Units received.
            sku (str): The SKU (count-tracked).
            incoming_id (None | str | Unset): The incoming it fulfils.
            location (None | str | Unset): Where the units arrived (always set in an answer: with an incoming, its
                location).
            reference (None | str | Unset): The document behind it.
     """

    id: str
    quantity: int
    sku: str
    incoming_id: None | str | Unset = UNSET
    location: None | str | Unset = UNSET
    reference: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        quantity = self.quantity

        sku = self.sku

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
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "quantity": quantity,
            "sku": sku,
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
        id = d.pop("id")

        quantity = d.pop("quantity")

        sku = d.pop("sku")

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


        receipt = cls(
            id=id,
            quantity=quantity,
            sku=sku,
            incoming_id=incoming_id,
            location=location,
            reference=reference,
        )


        receipt.additional_properties = d
        return receipt

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
