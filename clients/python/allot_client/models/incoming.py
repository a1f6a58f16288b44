from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Incoming")



@_attrs_define
class Incoming:
    """ Stock expected at a location: a validated request, and (as stored and answered) the
    incoming with what has been received of it.

        Attributes:
            id (str): Server-generated id (UUIDv7 text).
            location (str): Where it will arrive.
            quantity (int): Units expected.
            received (int): Units received of it so far, `0..=quantity`; `quantity - received` is still incoming.
            sku (str): The SKU (count-tracked).
            expected_at (datetime.datetime | None | Unset): When it is expected.
            reference (None | str | Unset): The document behind it.
     """

    id: str
    location: str
    quantity: int
    received: int
    sku: str
    expected_at: datetime.datetime | None | Unset = UNSET
    reference: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        location = self.location

        quantity = self.quantity

        received = self.received

        sku = self.sku

        expected_at: None | str | Unset
        if isinstance(self.expected_at, Unset):
            expected_at = UNSET
        elif isinstance(self.expected_at, datetime.datetime):
            expected_at = self.expected_at.isoformat()
        else:
            expected_at = self.expected_at

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "location": location,
            "quantity": quantity,
            "received": received,
            "sku": sku,
        })
        if expected_at is not UNSET:
            field_dict["expected_at"] = expected_at
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        location = d.pop("location")

        quantity = d.pop("quantity")

        received = d.pop("received")

        sku = d.pop("sku")

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


        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        incoming = cls(
            id=id,
            location=location,
            quantity=quantity,
            received=received,
            sku=sku,
            expected_at=expected_at,
            reference=reference,
        )


        incoming.additional_properties = d
        return incoming

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
