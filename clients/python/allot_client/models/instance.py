from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="Instance")



@_attrs_define
class Instance:
    """ One instance as its heartbeat records it.

        Attributes:
            id (str): Made at its start (UUID v4 text).
            seen_at (datetime.datetime): Its last heartbeat (UTC).
            started_at (datetime.datetime): When it started (UTC).
            version (str): The allot version it runs.
     """

    id: str
    seen_at: datetime.datetime
    started_at: datetime.datetime
    version: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        seen_at = self.seen_at.isoformat()

        started_at = self.started_at.isoformat()

        version = self.version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "seen_at": seen_at,
            "started_at": started_at,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        seen_at = datetime.datetime.fromisoformat(d.pop("seen_at"))




        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))




        version = d.pop("version")

        instance = cls(
            id=id,
            seen_at=seen_at,
            started_at=started_at,
            version=version,
        )


        instance.additional_properties = d
        return instance

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
