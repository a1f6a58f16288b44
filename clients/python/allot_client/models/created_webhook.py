from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.webhook_status import WebhookStatus
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.webhook_health import WebhookHealth





T = TypeVar("T", bound="CreatedWebhook")



@_attrs_define
class CreatedWebhook:
    """ `201` answer of `POST /v1/webhooks`: the endpoint and its secret, shown this once.

        Attributes:
            created_at (datetime.datetime): When it was made.
            id (str): Server-made id (UUID v4 text).
            status (WebhookStatus): Whether an endpoint is delivered to.
            types (list[str]): The types it receives; empty: every type (`["*"]` on the wire).
            url (str): Where deliveries go.
            secret (str): `whsec_…`: verify deliveries with it.
            health (WebhookHealth | Unset): An endpoint's health, as its delivery attempts left it (what an operator looks
                at before
                a receiver's owner asks "did you send it?").
     """

    created_at: datetime.datetime
    id: str
    status: WebhookStatus
    types: list[str]
    url: str
    secret: str
    health: WebhookHealth | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.webhook_health import WebhookHealth # noqa: PLC0415
        created_at = self.created_at.isoformat()

        id = self.id

        status = self.status.value

        types = self.types



        url = self.url

        secret = self.secret

        health: dict[str, Any] | Unset = UNSET
        if not isinstance(self.health, Unset):
            health = self.health.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "id": id,
            "status": status,
            "types": types,
            "url": url,
            "secret": secret,
        })
        if health is not UNSET:
            field_dict["health"] = health

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.webhook_health import WebhookHealth # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = d.pop("id")

        status = WebhookStatus(d.pop("status"))




        types = cast(list[str], d.pop("types"))


        url = d.pop("url")

        secret = d.pop("secret")

        _health = d.pop("health", UNSET)
        health: WebhookHealth | Unset
        if isinstance(_health,  Unset):
            health = UNSET
        else:
            health = WebhookHealth.from_dict(_health)




        created_webhook = cls(
            created_at=created_at,
            id=id,
            status=status,
            types=types,
            url=url,
            secret=secret,
            health=health,
        )


        created_webhook.additional_properties = d
        return created_webhook

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
