from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RescheduleBody")



@_attrs_define
class RescheduleBody:
    """ `POST /v1/jobs/{id}/reschedule` body: an operator moves a waiting job's next run.

        Attributes:
            delay_ms (int): Run no earlier than this long from now, ms (0..=`max_snooze_ms`; 0: now).
     """

    delay_ms: int





    def to_dict(self) -> dict[str, Any]:
        delay_ms = self.delay_ms


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "delay_ms": delay_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delay_ms = d.pop("delay_ms")

        reschedule_body = cls(
            delay_ms=delay_ms,
        )

        return reschedule_body

