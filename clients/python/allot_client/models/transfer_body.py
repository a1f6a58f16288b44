from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="TransferBody")



@_attrs_define
class TransferBody:
    """ `POST /v1/transfers` body.

        Attributes:
            from_ (str): Location it leaves (its available must cover `quantity`).
            quantity (int): Units, >= 1.
            sku (str): The SKU (count-tracked).
            to (str): Location it arrives at (another one; it must exist).
            reference (None | str | Unset): An absolute URI naming the document behind it (a transfer order); at most 2048
                bytes.
     """

    from_: str
    quantity: int
    sku: str
    to: str
    reference: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        quantity = self.quantity

        sku = self.sku

        to = self.to

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "from": from_,
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


        transfer_body = cls(
            from_=from_,
            quantity=quantity,
            sku=sku,
            to=to,
            reference=reference,
        )

        return transfer_body

