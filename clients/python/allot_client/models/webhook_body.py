from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="WebhookBody")



@_attrs_define
class WebhookBody:
    """ `POST /v1/webhooks` body.

        Attributes:
            types (list[str]): Event types to deliver: `["*"]` for every type, or a list of types.
            url (str): Where to `POST`: `https://…` (or `http://…`), no user or password, no fragment.
            secret (None | str | Unset): `whsec_` + base64 of 24..=64 bytes; made by the server when absent.
     """

    types: list[str]
    url: str
    secret: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        types = self.types



        url = self.url

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "types": types,
            "url": url,
        })
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        types = cast(list[str], d.pop("types"))


        url = d.pop("url")

        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))


        webhook_body = cls(
            types=types,
            url=url,
            secret=secret,
        )

        return webhook_body

