from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="TransferBody")



@_attrs_define
class TransferBody:
    """ `POST /v1/transfers` body.

        Attributes:
            from_ (str): Location it leaves (its available must cover `quantity`).
            quantity (int): Units, >= 1.
            sku (str): The SKU (count-tracked).
            to (str): Location it arrives at (another one; it must exist).
     """

    from_: str
    quantity: int
    sku: str
    to: str





    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        quantity = self.quantity

        sku = self.sku

        to = self.to


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "from": from_,
            "quantity": quantity,
            "sku": sku,
            "to": to,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = d.pop("from")

        quantity = d.pop("quantity")

        sku = d.pop("sku")

        to = d.pop("to")

        transfer_body = cls(
            from_=from_,
            quantity=quantity,
            sku=sku,
            to=to,
        )

        return transfer_body

