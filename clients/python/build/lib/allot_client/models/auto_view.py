from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.strategy import Strategy
from ..models.tier import Tier
from typing import cast
import datetime






T = TypeVar("T", bound="AutoView")



@_attrs_define
class AutoView:
    """ How `auto` stands for a SKU on the instance that answered (`GET /v1/skus/{sku}`'s `auto`).

        Attributes:
            since (datetime.datetime): Since when it has been in this tier.
            strategy (Strategy): How a stock allocation takes its rows. See README.md's table for each one's price.
                Sent as its wire name ([`Strategy::name`]).
            tier (Tier): A SKU's contention tier.
            waiters_avg_centi (int): Average waiters (requests of the SKU in flight when one arrives), in hundredths.
     """

    since: datetime.datetime
    strategy: Strategy
    tier: Tier
    waiters_avg_centi: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        since = self.since.isoformat()

        strategy = self.strategy.value

        tier = self.tier.value

        waiters_avg_centi = self.waiters_avg_centi


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "since": since,
            "strategy": strategy,
            "tier": tier,
            "waiters_avg_centi": waiters_avg_centi,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        since = datetime.datetime.fromisoformat(d.pop("since"))




        strategy = Strategy(d.pop("strategy"))




        tier = Tier(d.pop("tier"))




        waiters_avg_centi = d.pop("waiters_avg_centi")

        auto_view = cls(
            since=since,
            strategy=strategy,
            tier=tier,
            waiters_avg_centi=waiters_avg_centi,
        )


        auto_view.additional_properties = d
        return auto_view

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
