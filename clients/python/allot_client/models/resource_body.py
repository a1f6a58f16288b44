from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.rules_body import RulesBody





T = TypeVar("T", bound="ResourceBody")



@_attrs_define
class ResourceBody:
    """ `PUT /v1/resources/{resource}` body.

        Attributes:
            capacity (int | None | Unset): Bookable quantity per slot, 0..=1 000 000 (default 1); more than 1 needs
                `slot_ms`.
            pools (list[str] | None | Unset): Pools this resource counts against (each must exist, with `slot_ms`); needs
                `slot_ms`.
            rules (None | RulesBody | Unset):
            slot_ms (int | None | Unset): Slot length, ms, dividing a day (86 400 000 a night, 3 600 000 an hour).
            time_zone (None | str | Unset): IANA time zone whose midnights align the slots and whose dates the rules name
                (default `UTC`).
     """

    capacity: int | None | Unset = UNSET
    pools: list[str] | None | Unset = UNSET
    rules: None | RulesBody | Unset = UNSET
    slot_ms: int | None | Unset = UNSET
    time_zone: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.rules_body import RulesBody # noqa: PLC0415
        capacity: int | None | Unset
        if isinstance(self.capacity, Unset):
            capacity = UNSET
        else:
            capacity = self.capacity

        pools: list[str] | None | Unset
        if isinstance(self.pools, Unset):
            pools = UNSET
        elif isinstance(self.pools, list):
            pools = self.pools


        else:
            pools = self.pools

        rules: dict[str, Any] | None | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, RulesBody):
            rules = self.rules.to_dict()
        else:
            rules = self.rules

        slot_ms: int | None | Unset
        if isinstance(self.slot_ms, Unset):
            slot_ms = UNSET
        else:
            slot_ms = self.slot_ms

        time_zone: None | str | Unset
        if isinstance(self.time_zone, Unset):
            time_zone = UNSET
        else:
            time_zone = self.time_zone


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if capacity is not UNSET:
            field_dict["capacity"] = capacity
        if pools is not UNSET:
            field_dict["pools"] = pools
        if rules is not UNSET:
            field_dict["rules"] = rules
        if slot_ms is not UNSET:
            field_dict["slot_ms"] = slot_ms
        if time_zone is not UNSET:
            field_dict["time_zone"] = time_zone

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rules_body import RulesBody # noqa: PLC0415
        d = dict(src_dict)
        def _parse_capacity(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        capacity = _parse_capacity(d.pop("capacity", UNSET))


        def _parse_pools(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                pools_type_0 = cast(list[str], data)

                return pools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        pools = _parse_pools(d.pop("pools", UNSET))


        def _parse_rules(data: object) -> None | RulesBody | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_1 = RulesBody.from_dict(data)



                return rules_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RulesBody | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))


        def _parse_slot_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        slot_ms = _parse_slot_ms(d.pop("slot_ms", UNSET))


        def _parse_time_zone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        time_zone = _parse_time_zone(d.pop("time_zone", UNSET))


        resource_body = cls(
            capacity=capacity,
            pools=pools,
            rules=rules,
            slot_ms=slot_ms,
            time_zone=time_zone,
        )

        return resource_body

