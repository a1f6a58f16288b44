from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.scope import Scope
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="ApiKey")



@_attrs_define
class ApiKey:
    """ A key as stored and listed (never the secret).

        Attributes:
            created_at (datetime.datetime): When it was made.
            id (str): Server-made id (UUID v4 text).
            name (str): A name for people (`checkout`).
            prefix (str): The first characters of the secret (`allot_sk_ab12…`), to recognise it in a list.
            scopes (list[Scope]): What it may do.
            tenant (str): A tenant's name: 1..=`max_name_len` chars of `[A-Za-z0-9._:-]` when it came through
                [`Tenant::parse`]. Serialises as the bare string. Derefs to `&str`, so SQL parameters and
                helpers that take `&str` accept it as is.
            rate_per_s (int | None | Unset): Requests per second it may make (token bucket); `None`: the server's default.
            revoked_at (datetime.datetime | None | Unset): When it was revoked, if it was.
     """

    created_at: datetime.datetime
    id: str
    name: str
    prefix: str
    scopes: list[Scope]
    tenant: str
    rate_per_s: int | None | Unset = UNSET
    revoked_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = self.id

        name = self.name

        prefix = self.prefix

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)



        tenant = self.tenant

        rate_per_s: int | None | Unset
        if isinstance(self.rate_per_s, Unset):
            rate_per_s = UNSET
        else:
            rate_per_s = self.rate_per_s

        revoked_at: None | str | Unset
        if isinstance(self.revoked_at, Unset):
            revoked_at = UNSET
        elif isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "id": id,
            "name": name,
            "prefix": prefix,
            "scopes": scopes,
            "tenant": tenant,
        })
        if rate_per_s is not UNSET:
            field_dict["rate_per_s"] = rate_per_s
        if revoked_at is not UNSET:
            field_dict["revoked_at"] = revoked_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = d.pop("id")

        name = d.pop("name")

        prefix = d.pop("prefix")

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in (_scopes):
            scopes_item = Scope(scopes_item_data)



            scopes.append(scopes_item)


        tenant = d.pop("tenant")

        def _parse_rate_per_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_per_s = _parse_rate_per_s(d.pop("rate_per_s", UNSET))


        def _parse_revoked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)



                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at", UNSET))


        api_key = cls(
            created_at=created_at,
            id=id,
            name=name,
            prefix=prefix,
            scopes=scopes,
            tenant=tenant,
            rate_per_s=rate_per_s,
            revoked_at=revoked_at,
        )


        api_key.additional_properties = d
        return api_key

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
