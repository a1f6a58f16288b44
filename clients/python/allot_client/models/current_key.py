from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.scope import Scope
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CurrentKey")



@_attrs_define
class CurrentKey:
    """ `GET /v1/key` answer: the calling key as the server sees it, so a client (the console, a
    script) can show only what the key may do.

        Attributes:
            grants (list[Scope]): Every scope those grant (`admin` is everything of its tenant; a `:write` implies its
                `:read`), so a client need not know the rules to hide what the key may not do.
            scopes (list[Scope]): The scopes the key was given (`["admin"]` on a server that requires no keys).
            tenant (str): The tenant everything the key does lives in.
            id (None | str | Unset): The key's id; `null` on a server that requires no keys.
            rate_per_s (int | None | Unset): Its own rate (requests per second), if it has one.
     """

    grants: list[Scope]
    scopes: list[Scope]
    tenant: str
    id: None | str | Unset = UNSET
    rate_per_s: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        grants = []
        for grants_item_data in self.grants:
            grants_item = grants_item_data.value
            grants.append(grants_item)



        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)



        tenant = self.tenant

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        rate_per_s: int | None | Unset
        if isinstance(self.rate_per_s, Unset):
            rate_per_s = UNSET
        else:
            rate_per_s = self.rate_per_s


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "grants": grants,
            "scopes": scopes,
            "tenant": tenant,
        })
        if id is not UNSET:
            field_dict["id"] = id
        if rate_per_s is not UNSET:
            field_dict["rate_per_s"] = rate_per_s

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        grants = []
        _grants = d.pop("grants")
        for grants_item_data in (_grants):
            grants_item = Scope(grants_item_data)



            grants.append(grants_item)


        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in (_scopes):
            scopes_item = Scope(scopes_item_data)



            scopes.append(scopes_item)


        tenant = d.pop("tenant")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))


        def _parse_rate_per_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_per_s = _parse_rate_per_s(d.pop("rate_per_s", UNSET))


        current_key = cls(
            grants=grants,
            scopes=scopes,
            tenant=tenant,
            id=id,
            rate_per_s=rate_per_s,
        )


        current_key.additional_properties = d
        return current_key

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
