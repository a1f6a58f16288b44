from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="UnitAllocationBody")



@_attrs_define
class UnitAllocationBody:
    """ `POST /v1/unit-allocations` body.

        Attributes:
            quantity (int): How many units, 1..=`max_unit_claim`.
            sku (str): The SKU (unit-tracked).
            allow_partial (bool | Unset): Take fewer than `quantity` (at least one) when fewer are available.
            hold_ttl_ms (int | None | Unset): Make it a hold of this many ms (confirmed/released like stock holds).
            order_by (list[str] | Unset): Columns to order candidates by (`id`, `serial`, `location`, `lot`, `received_at`,
                `expires_at`; a `-` prefix means descending; NULL sorts as the smallest value), or
                `fefo` (earliest `expires_at` first, units without one last). Default: `id`
                (insertion order). A unit past its `expires_at` is never taken, whatever the order.
            strategy (None | str | Unset): `skip_locked` (default on PostgreSQL), `nowait_scan`, `batched` (PostgreSQL: many
                claims
                of one SKU in one transaction), or `serialized` (SQLite).
     """

    quantity: int
    sku: str
    allow_partial: bool | Unset = UNSET
    hold_ttl_ms: int | None | Unset = UNSET
    order_by: list[str] | Unset = UNSET
    strategy: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        sku = self.sku

        allow_partial = self.allow_partial

        hold_ttl_ms: int | None | Unset
        if isinstance(self.hold_ttl_ms, Unset):
            hold_ttl_ms = UNSET
        else:
            hold_ttl_ms = self.hold_ttl_ms

        order_by: list[str] | Unset = UNSET
        if not isinstance(self.order_by, Unset):
            order_by = self.order_by



        strategy: None | str | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        else:
            strategy = self.strategy


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "quantity": quantity,
            "sku": sku,
        })
        if allow_partial is not UNSET:
            field_dict["allow_partial"] = allow_partial
        if hold_ttl_ms is not UNSET:
            field_dict["hold_ttl_ms"] = hold_ttl_ms
        if order_by is not UNSET:
            field_dict["order_by"] = order_by
        if strategy is not UNSET:
            field_dict["strategy"] = strategy

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        sku = d.pop("sku")

        allow_partial = d.pop("allow_partial", UNSET)

        def _parse_hold_ttl_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        hold_ttl_ms = _parse_hold_ttl_ms(d.pop("hold_ttl_ms", UNSET))


        order_by = cast(list[str], d.pop("order_by", UNSET))


        def _parse_strategy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        strategy = _parse_strategy(d.pop("strategy", UNSET))


        unit_allocation_body = cls(
            quantity=quantity,
            sku=sku,
            allow_partial=allow_partial,
            hold_ttl_ms=hold_ttl_ms,
            order_by=order_by,
            strategy=strategy,
        )

        return unit_allocation_body

