from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.reason_type_0_rule import ReasonType0Rule
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="ReasonType0")



@_attrs_define
class ReasonType0:
    """ A slot (of the resource, or of `pool`) has `free` left, fewer than `requested`.

        Attributes:
            free (int): What it has free.
            requested (int): What the booking asks.
            rule (ReasonType0Rule):
            slot_start (datetime.datetime): The slot's start.
            pool (None | str | Unset): The pool whose slot it is (absent: the resource's own).
     """

    free: int
    requested: int
    rule: ReasonType0Rule
    slot_start: datetime.datetime
    pool: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        free = self.free

        requested = self.requested

        rule = self.rule.value

        slot_start = self.slot_start.isoformat()

        pool: None | str | Unset
        if isinstance(self.pool, Unset):
            pool = UNSET
        else:
            pool = self.pool


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "free": free,
            "requested": requested,
            "rule": rule,
            "slot_start": slot_start,
        })
        if pool is not UNSET:
            field_dict["pool"] = pool

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        free = d.pop("free")

        requested = d.pop("requested")

        rule = ReasonType0Rule(d.pop("rule"))




        slot_start = datetime.datetime.fromisoformat(d.pop("slot_start"))




        def _parse_pool(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        pool = _parse_pool(d.pop("pool", UNSET))


        reason_type_0 = cls(
            free=free,
            requested=requested,
            rule=rule,
            slot_start=slot_start,
            pool=pool,
        )


        reason_type_0.additional_properties = d
        return reason_type_0

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
