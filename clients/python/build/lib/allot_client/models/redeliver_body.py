from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RedeliverBody")



@_attrs_define
class RedeliverBody:
    """ `POST /v1/webhooks/{id}/redeliver` body: the events after `after` (and up to `until`,
    when given) go to the endpoint again.

        Attributes:
            after (int): Redeliver the events with a cursor above this, 0..=`MAX_CURSOR` (2^62 - 1).
            until (int | None | Unset): And at most this one.
     """

    after: int
    until: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        after = self.after

        until: int | None | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        else:
            until = self.until


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "after": after,
        })
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        after = d.pop("after")

        def _parse_until(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        until = _parse_until(d.pop("until", UNSET))


        redeliver_body = cls(
            after=after,
            until=until,
        )

        return redeliver_body

