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






T = TypeVar("T", bound="MoveBody")



@_attrs_define
class MoveBody:
    """ `POST /v1/skus/{sku}/moves` body.

        Attributes:
            from_ (QuantityState): A quantity state a move names: `available` or one of the unsellable three.
            quantity (int): Units moved, 1..=`max_quantity`.
            reason (StockReason): Why stock changed (wire and stored name in `snake_case`).
            to (QuantityState): A quantity state a move names: `available` or one of the unsellable three.
            location (None | str | Unset): Where (default `default`); it must exist.
            reference (None | str | Unset): An absolute URI naming the document behind it (at most 2048 bytes).
     """

    from_: QuantityState
    quantity: int
    reason: StockReason
    to: QuantityState
    location: None | str | Unset = UNSET
    reference: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.value

        quantity = self.quantity

        reason = self.reason.value

        to = self.to.value

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
            "from": from_,
            "quantity": quantity,
            "reason": reason,
            "to": to,
        })
        if location is not UNSET:
            field_dict["location"] = location
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = QuantityState(d.pop("from"))




        quantity = d.pop("quantity")

        reason = StockReason(d.pop("reason"))




        to = QuantityState(d.pop("to"))




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


        move_body = cls(
            from_=from_,
            quantity=quantity,
            reason=reason,
            to=to,
            location=location,
            reference=reference,
        )

        return move_body

