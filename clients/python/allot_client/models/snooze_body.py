from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="SnoozeBody")



@_attrs_define
class SnoozeBody:
    """ `POST /v1/jobs/{id}/snooze` body.

        Attributes:
            delay_ms (int): Run again after this long, ms (0..=`max_snooze_ms`).
            lease_token (str): The lease token of the attempt.
     """

    delay_ms: int
    lease_token: str





    def to_dict(self) -> dict[str, Any]:
        delay_ms = self.delay_ms

        lease_token = self.lease_token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "delay_ms": delay_ms,
            "lease_token": lease_token,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delay_ms = d.pop("delay_ms")

        lease_token = d.pop("lease_token")

        snooze_body = cls(
            delay_ms=delay_ms,
            lease_token=lease_token,
        )

        return snooze_body

