from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CreateSkuBody")



@_attrs_define
class CreateSkuBody:
    """ `POST /v1/skus` body.

        Attributes:
            on_hand (int): Initial stock, >= 0.
            sku (str): SKU name.
            buckets (int | None | Unset): Buckets for the `segmented` strategy (default 1), at each location.
            location (None | str | Unset): Where the initial stock is (default `default`); it must exist.
            low_stock_below (int | None | Unset): Available below this is `sku.low_stock` on the change feed,
                1..=`max_quantity`.
     """

    on_hand: int
    sku: str
    buckets: int | None | Unset = UNSET
    location: None | str | Unset = UNSET
    low_stock_below: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        on_hand = self.on_hand

        sku = self.sku

        buckets: int | None | Unset
        if isinstance(self.buckets, Unset):
            buckets = UNSET
        else:
            buckets = self.buckets

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        low_stock_below: int | None | Unset
        if isinstance(self.low_stock_below, Unset):
            low_stock_below = UNSET
        else:
            low_stock_below = self.low_stock_below


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "on_hand": on_hand,
            "sku": sku,
        })
        if buckets is not UNSET:
            field_dict["buckets"] = buckets
        if location is not UNSET:
            field_dict["location"] = location
        if low_stock_below is not UNSET:
            field_dict["low_stock_below"] = low_stock_below

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        on_hand = d.pop("on_hand")

        sku = d.pop("sku")

        def _parse_buckets(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        buckets = _parse_buckets(d.pop("buckets", UNSET))


        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_low_stock_below(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        low_stock_below = _parse_low_stock_below(d.pop("low_stock_below", UNSET))


        create_sku_body = cls(
            on_hand=on_hand,
            sku=sku,
            buckets=buckets,
            location=location,
            low_stock_below=low_stock_below,
        )

        return create_sku_body

