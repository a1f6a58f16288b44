from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ExtendBody")



@_attrs_define
class ExtendBody:
    """ `POST /v1/holds/{id}/extend` and `POST /v1/bookings/{id}/extend` body.

        Attributes:
            ttl_ms (int): The hold lasts at least this long from now, ms: `min_hold_ttl_ms..=max_hold_ttl_ms`
                (an extension never shortens a hold; see [`extended_expiry`]).
     """

    ttl_ms: int





    def to_dict(self) -> dict[str, Any]:
        ttl_ms = self.ttl_ms


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "ttl_ms": ttl_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ttl_ms = d.pop("ttl_ms")

        extend_body = cls(
            ttl_ms=ttl_ms,
        )

        return extend_body

