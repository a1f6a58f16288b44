from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Transfer")



@_attrs_define
class Transfer:
    """ A validated transfer, and (as stored and answered) a transfer made.

        Attributes:
            from_ (str): From this location.
            id (str): Server-generated id (UUID v4 text), the `ref` of its two ledger entries.
            quantity (int): Units moved.
            sku (str): The SKU.
            to (str): To this location.
            reference (None | str | Unset): The document behind it, if the request named one.
     """

    from_: str
    id: str
    quantity: int
    sku: str
    to: str
    reference: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        id = self.id

        quantity = self.quantity

        sku = self.sku

        to = self.to

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "from": from_,
            "id": id,
            "quantity": quantity,
            "sku": sku,
            "to": to,
        })
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = d.pop("from")

        id = d.pop("id")

        quantity = d.pop("quantity")

        sku = d.pop("sku")

        to = d.pop("to")

        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        transfer = cls(
            from_=from_,
            id=id,
            quantity=quantity,
            sku=sku,
            to=to,
            reference=reference,
        )


        transfer.additional_properties = d
        return transfer

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
