from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="CompleteBody")



@_attrs_define
class CompleteBody:
    """ `POST /v1/jobs/{id}/complete` body.

        Attributes:
            lease_token (str): The lease token of the attempt.
            output (Any | Unset): What the job produced: any JSON, at most `max_payload_bytes` serialized, kept with the
                job (`GET /v1/jobs/{id}`) until it is pruned.
     """

    lease_token: str
    output: Any | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        lease_token = self.lease_token

        output = self.output


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "lease_token": lease_token,
        })
        if output is not UNSET:
            field_dict["output"] = output

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lease_token = d.pop("lease_token")

        output = d.pop("output", UNSET)

        complete_body = cls(
            lease_token=lease_token,
            output=output,
        )

        return complete_body

