from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stock_reason import StockReason
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SetLevelBody")



@_attrs_define
class SetLevelBody:
    """ `POST /v1/skus/{sku}/levels/{location}` body: set `on_hand` there to `on_hand` only if it
    is still `compare_on_hand` (Shopify's `compareQuantity`, for counts synced from an ERP or a
    warehouse scan).

        Attributes:
            compare_on_hand (int): What on hand must still be there; else `409 compare_failed` with the current value.
            on_hand (int): The new on hand at the location, >= its held.
            reason (None | StockReason | Unset):
            reference (None | str | Unset): An absolute URI naming the document behind it (a count sheet); at most 2048
                bytes.
     """

    compare_on_hand: int
    on_hand: int
    reason: None | StockReason | Unset = UNSET
    reference: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        compare_on_hand = self.compare_on_hand

        on_hand = self.on_hand

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        elif isinstance(self.reason, StockReason):
            reason = self.reason.value
        else:
            reason = self.reason

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "compare_on_hand": compare_on_hand,
            "on_hand": on_hand,
        })
        if reason is not UNSET:
            field_dict["reason"] = reason
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        compare_on_hand = d.pop("compare_on_hand")

        on_hand = d.pop("on_hand")

        def _parse_reason(data: object) -> None | StockReason | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_1 = StockReason(data)



                return reason_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StockReason | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))


        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        set_level_body = cls(
            compare_on_hand=compare_on_hand,
            on_hand=on_hand,
            reason=reason,
            reference=reference,
        )

        return set_level_body

