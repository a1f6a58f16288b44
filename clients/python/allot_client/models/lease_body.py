from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LeaseBody")



@_attrs_define
class LeaseBody:
    """ `complete` / `fail` / `heartbeat` body.

        Attributes:
            lease_token (str): The lease token of the attempt.
            error (None | str | Unset): `fail`: what went wrong (kept in the job's errors).
            lease_ms (int | None | Unset): `heartbeat`: the new lease from now, ms.
            retry_in_ms (int | None | Unset): `fail`: retry after this many ms instead of the exponential backoff.
     """

    lease_token: str
    error: None | str | Unset = UNSET
    lease_ms: int | None | Unset = UNSET
    retry_in_ms: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        lease_token = self.lease_token

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        lease_ms: int | None | Unset
        if isinstance(self.lease_ms, Unset):
            lease_ms = UNSET
        else:
            lease_ms = self.lease_ms

        retry_in_ms: int | None | Unset
        if isinstance(self.retry_in_ms, Unset):
            retry_in_ms = UNSET
        else:
            retry_in_ms = self.retry_in_ms


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "lease_token": lease_token,
        })
        if error is not UNSET:
            field_dict["error"] = error
        if lease_ms is not UNSET:
            field_dict["lease_ms"] = lease_ms
        if retry_in_ms is not UNSET:
            field_dict["retry_in_ms"] = retry_in_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lease_token = d.pop("lease_token")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_lease_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lease_ms = _parse_lease_ms(d.pop("lease_ms", UNSET))


        def _parse_retry_in_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_in_ms = _parse_retry_in_ms(d.pop("retry_in_ms", UNSET))


        lease_body = cls(
            lease_token=lease_token,
            error=error,
            lease_ms=lease_ms,
            retry_in_ms=retry_in_ms,
        )

        return lease_body

