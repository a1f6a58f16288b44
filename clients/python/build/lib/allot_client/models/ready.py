from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="Ready")



@_attrs_define
class Ready:
    """ `GET /readyz` body: whether this instance should get traffic.

        Attributes:
            backend (str): `postgres` or `sqlite`.
            problems (list[str]): What keeps it from being ready, in words (empty when ready): the database
                unreachable, its schema at another version than this build's (and what to run), Redis
                unreachable when configured, the server shutting down.
            status (str): `ready`, or `not_ready` (status 503).
     """

    backend: str
    problems: list[str]
    status: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        backend = self.backend

        problems = self.problems



        status = self.status


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "backend": backend,
            "problems": problems,
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        backend = d.pop("backend")

        problems = cast(list[str], d.pop("problems"))


        status = d.pop("status")

        ready = cls(
            backend=backend,
            problems=problems,
            status=status,
        )


        ready.additional_properties = d
        return ready

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
