from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.auto_view import AutoView
  from ..models.level import Level





T = TypeVar("T", bound="Sku")



@_attrs_define
class Sku:
    """ A SKU's stock. `available = on_hand - held - damaged - quality_control - safety_stock`,
    never negative. For a segmented SKU the counts are the totals over its buckets and
    `version` is the sum of the buckets' versions.

        Attributes:
            available (int): What allocations and holds may take: `on_hand - held` less the unsellable states.
            buckets (int): How many buckets (segments) the stock is split into at each location; 1 means
                unsegmented.
            damaged (int): On hand but broken or spoiled: never sold (see `allot_core::states`).
            held (int): Units set aside by holds.
            incoming (int): Expected, not on hand yet: what incoming stock still awaits receipt; never
                allocated.
            levels (list[Level]): The counts per location, by location name (a unit-tracked SKU's from its units'
                `location`, units without one at `default`). The totals above are their sums.
            on_hand (int): Units physically in stock (not yet allocated): available + held + the unsellable
                states.
            quality_control (int): On hand but waiting for inspection: never sold.
            safety_stock (int): On hand but kept back as a buffer: never sold.
            sku (str): The SKU name, 1..=128 chars of `[A-Za-z0-9._:-]`. Example: HOT.
            version (int): Increases with every change; used by the optimistic strategy.
            auto (AutoView | None | Unset):
            backorder_limit (int | Unset): Most units allocations may owe beyond stock at once ([`crate::backorder`]);
                absent: 0,
                no backorders.
            backordered (int | Unset): Units allocations owe now (filled oldest first as stock comes back); absent: 0.
            low_stock_below (int | None | Unset): Available below this is `sku.low_stock` on the change feed; absent: no
                threshold.
     """

    available: int
    buckets: int
    damaged: int
    held: int
    incoming: int
    levels: list[Level]
    on_hand: int
    quality_control: int
    safety_stock: int
    sku: str
    version: int
    auto: AutoView | None | Unset = UNSET
    backorder_limit: int | Unset = UNSET
    backordered: int | Unset = UNSET
    low_stock_below: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.auto_view import AutoView # noqa: PLC0415
        from ..models.level import Level # noqa: PLC0415
        available = self.available

        buckets = self.buckets

        damaged = self.damaged

        held = self.held

        incoming = self.incoming

        levels = []
        for levels_item_data in self.levels:
            levels_item = levels_item_data.to_dict()
            levels.append(levels_item)



        on_hand = self.on_hand

        quality_control = self.quality_control

        safety_stock = self.safety_stock

        sku = self.sku

        version = self.version

        auto: dict[str, Any] | None | Unset
        if isinstance(self.auto, Unset):
            auto = UNSET
        elif isinstance(self.auto, AutoView):
            auto = self.auto.to_dict()
        else:
            auto = self.auto

        backorder_limit = self.backorder_limit

        backordered = self.backordered

        low_stock_below: int | None | Unset
        if isinstance(self.low_stock_below, Unset):
            low_stock_below = UNSET
        else:
            low_stock_below = self.low_stock_below


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "available": available,
            "buckets": buckets,
            "damaged": damaged,
            "held": held,
            "incoming": incoming,
            "levels": levels,
            "on_hand": on_hand,
            "quality_control": quality_control,
            "safety_stock": safety_stock,
            "sku": sku,
            "version": version,
        })
        if auto is not UNSET:
            field_dict["auto"] = auto
        if backorder_limit is not UNSET:
            field_dict["backorder_limit"] = backorder_limit
        if backordered is not UNSET:
            field_dict["backordered"] = backordered
        if low_stock_below is not UNSET:
            field_dict["low_stock_below"] = low_stock_below

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.auto_view import AutoView # noqa: PLC0415
        from ..models.level import Level # noqa: PLC0415
        d = dict(src_dict)
        available = d.pop("available")

        buckets = d.pop("buckets")

        damaged = d.pop("damaged")

        held = d.pop("held")

        incoming = d.pop("incoming")

        levels = []
        _levels = d.pop("levels")
        for levels_item_data in (_levels):
            levels_item = Level.from_dict(levels_item_data)



            levels.append(levels_item)


        on_hand = d.pop("on_hand")

        quality_control = d.pop("quality_control")

        safety_stock = d.pop("safety_stock")

        sku = d.pop("sku")

        version = d.pop("version")

        def _parse_auto(data: object) -> AutoView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auto_type_1 = AutoView.from_dict(data)



                return auto_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AutoView | None | Unset, data)

        auto = _parse_auto(d.pop("auto", UNSET))


        backorder_limit = d.pop("backorder_limit", UNSET)

        backordered = d.pop("backordered", UNSET)

        def _parse_low_stock_below(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        low_stock_below = _parse_low_stock_below(d.pop("low_stock_below", UNSET))


        sku = cls(
            available=available,
            buckets=buckets,
            damaged=damaged,
            held=held,
            incoming=incoming,
            levels=levels,
            on_hand=on_hand,
            quality_control=quality_control,
            safety_stock=safety_stock,
            sku=sku,
            version=version,
            auto=auto,
            backorder_limit=backorder_limit,
            backordered=backordered,
            low_stock_below=low_stock_below,
        )


        sku.additional_properties = d
        return sku

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
