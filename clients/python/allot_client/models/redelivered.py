from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Redelivered")



@_attrs_define
class Redelivered:
    """ `POST /v1/webhooks/{id}/redeliver` answer: how many deliveries were queued, and where to
    go on from (a call queues at most one page, `max_page_size` events).

        Attributes:
            next_ (int): Ask again with `after = next` (while below `until`) for the rest.
            queued (int): Deliveries queued.
     """

    next_: int
    queued: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        next_ = self.next_

        queued = self.queued


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "next": next_,
            "queued": queued,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        next_ = d.pop("next")

        queued = d.pop("queued")

        redelivered = cls(
            next_=next_,
            queued=queued,
        )


        redelivered.additional_properties = d
        return redelivered

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
