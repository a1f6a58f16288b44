from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SkuSettingsBody")



@_attrs_define
class SkuSettingsBody:
    """ `PATCH /v1/skus/{sku}` body: settings of a SKU that move no stock, at least one.

        Attributes:
            backorder_limit (int | Unset): Most units allocations may owe beyond stock at once, 0..=`max_quantity` (0: no
                backorders; see `allot_core::backorder`); absent: kept; `null` is refused.
            low_stock_below (int | None | Unset): The `sku.low_stock` threshold, 1..=`max_quantity`; `null` removes it;
                absent: kept.
     """

    backorder_limit: int | Unset = UNSET
    low_stock_below: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        backorder_limit = self.backorder_limit

        low_stock_below: int | None | Unset
        if isinstance(self.low_stock_below, Unset):
            low_stock_below = UNSET
        else:
            low_stock_below = self.low_stock_below


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if backorder_limit is not UNSET:
            field_dict["backorder_limit"] = backorder_limit
        if low_stock_below is not UNSET:
            field_dict["low_stock_below"] = low_stock_below

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        backorder_limit = d.pop("backorder_limit", UNSET)

        def _parse_low_stock_below(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        low_stock_below = _parse_low_stock_below(d.pop("low_stock_below", UNSET))


        sku_settings_body = cls(
            backorder_limit=backorder_limit,
            low_stock_below=low_stock_below,
        )

        return sku_settings_body

