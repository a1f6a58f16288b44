from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.scope import Scope
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="NewKeyBody")



@_attrs_define
class NewKeyBody:
    """ `POST /v1/keys` body and `allot keys create` arguments.

        Attributes:
            name (str): A name for people, 1..=128 chars.
            scopes (list[Scope]): At least one scope.
            rate_per_s (int | None | Unset): Requests per second, 1..=1 000 000; the server's default when absent.
     """

    name: str
    scopes: list[Scope]
    rate_per_s: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)



        rate_per_s: int | None | Unset
        if isinstance(self.rate_per_s, Unset):
            rate_per_s = UNSET
        else:
            rate_per_s = self.rate_per_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "scopes": scopes,
        })
        if rate_per_s is not UNSET:
            field_dict["rate_per_s"] = rate_per_s

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in (_scopes):
            scopes_item = Scope(scopes_item_data)



            scopes.append(scopes_item)


        def _parse_rate_per_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_per_s = _parse_rate_per_s(d.pop("rate_per_s", UNSET))


        new_key_body = cls(
            name=name,
            scopes=scopes,
            rate_per_s=rate_per_s,
        )

        return new_key_body

