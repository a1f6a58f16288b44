from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Health")



@_attrs_define
class Health:
    """ `GET /healthz` body.

        Attributes:
            backend (str): `postgres` or `sqlite`.
            status (str): `ok` or `unavailable`.
            redis (None | str | Unset): `ok` or `unavailable`, when Redis is configured (it does not make the service
                unhealthy: only the Redis strategies need it).
     """

    backend: str
    status: str
    redis: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        backend = self.backend

        status = self.status

        redis: None | str | Unset
        if isinstance(self.redis, Unset):
            redis = UNSET
        else:
            redis = self.redis


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "backend": backend,
            "status": status,
        })
        if redis is not UNSET:
            field_dict["redis"] = redis

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        backend = d.pop("backend")

        status = d.pop("status")

        def _parse_redis(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        redis = _parse_redis(d.pop("redis", UNSET))


        health = cls(
            backend=backend,
            status=status,
            redis=redis,
        )


        health.additional_properties = d
        return health

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
