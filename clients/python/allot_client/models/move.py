from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.quantity_state import QuantityState
from ..models.stock_reason import StockReason
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Move")



@_attrs_define
class Move:
    """ A move between quantity states: a validated request, and (as answered) the move made.

        Attributes:
            from_ (QuantityState): A quantity state a move names: `available` or one of the unsellable three.
            id (str): Server-generated id (UUIDv7 text), the `ref` of its `moved` ledger entry.
            location (str): Where.
            quantity (int): Units moved.
            reason (StockReason): Why stock changed (wire and stored name in `snake_case`).
            sku (str): The SKU (count-tracked).
            to (QuantityState): A quantity state a move names: `available` or one of the unsellable three.
            reference (None | str | Unset): The document behind it.
     """

    from_: QuantityState
    id: str
    location: str
    quantity: int
    reason: StockReason
    sku: str
    to: QuantityState
    reference: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.value

        id = self.id

        location = self.location

        quantity = self.quantity

        reason = self.reason.value

        sku = self.sku

        to = self.to.value

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
            "location": location,
            "quantity": quantity,
            "reason": reason,
            "sku": sku,
            "to": to,
        })
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = QuantityState(d.pop("from"))




        id = d.pop("id")

        location = d.pop("location")

        quantity = d.pop("quantity")

        reason = StockReason(d.pop("reason"))




        sku = d.pop("sku")

        to = QuantityState(d.pop("to"))




        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        move = cls(
            from_=from_,
            id=id,
            location=location,
            quantity=quantity,
            reason=reason,
            sku=sku,
            to=to,
            reference=reference,
        )


        move.additional_properties = d
        return move

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
