from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stock_reason import StockReason
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AdjustmentBody")



@_attrs_define
class AdjustmentBody:
    """ `POST /v1/skus/{sku}/adjustments` body.

        Attributes:
            delta (int): Change of `on_hand`, non-zero; negative beyond `available` is `insufficient_stock`.
            location (None | str | Unset): Which location's stock changes (default `default`); it must exist.
            reason (None | StockReason | Unset):
            reference (None | str | Unset): An absolute URI naming the document behind it (a count sheet, a ticket); at most
                2048
                bytes.
     """

    delta: int
    location: None | str | Unset = UNSET
    reason: None | StockReason | Unset = UNSET
    reference: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        delta = self.delta

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

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
            "delta": delta,
        })
        if location is not UNSET:
            field_dict["location"] = location
        if reason is not UNSET:
            field_dict["reason"] = reason
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delta = d.pop("delta")

        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


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


        adjustment_body = cls(
            delta=delta,
            location=location,
            reason=reason,
            reference=reference,
        )

        return adjustment_body

