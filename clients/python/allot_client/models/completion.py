from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Completion")



@_attrs_define
class Completion:
    """ One entry of a batch completion.

        Attributes:
            id (int): Job id.
            lease_token (str): Its lease token.
     """

    id: int
    lease_token: str





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        lease_token = self.lease_token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "lease_token": lease_token,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        lease_token = d.pop("lease_token")

        completion = cls(
            id=id,
            lease_token=lease_token,
        )

        return completion

