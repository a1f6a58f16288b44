from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="WebhookHealth")



@_attrs_define
class WebhookHealth:
    """ An endpoint's health, as its delivery attempts left it (what an operator looks at before
    a receiver's owner asks "did you send it?").

        Attributes:
            consecutive_failures (int): Attempts that failed since the last `2xx`.
            failing_since (datetime.datetime | None | Unset): The first failure since the last `2xx`; `None` while
                deliveries succeed.
            last_attempt_at (datetime.datetime | None | Unset): The last attempt (UTC); `None` before the first.
            last_error (None | str | Unset): Why the last attempt failed, in words (`answered 500`, `no answer: …`, an
                address the
                server may not reach); at most [`MAX_ERROR_LEN`] bytes; `None` when it was delivered
                or none was made yet.
            last_status (int | None | Unset): The HTTP status of the last attempt's answer; `None`: no answer (timeout, no
                connection, a refused address) or no attempt yet.
            last_success_at (datetime.datetime | None | Unset): The last `2xx` (UTC).
     """

    consecutive_failures: int
    failing_since: datetime.datetime | None | Unset = UNSET
    last_attempt_at: datetime.datetime | None | Unset = UNSET
    last_error: None | str | Unset = UNSET
    last_status: int | None | Unset = UNSET
    last_success_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        consecutive_failures = self.consecutive_failures

        failing_since: None | str | Unset
        if isinstance(self.failing_since, Unset):
            failing_since = UNSET
        elif isinstance(self.failing_since, datetime.datetime):
            failing_since = self.failing_since.isoformat()
        else:
            failing_since = self.failing_since

        last_attempt_at: None | str | Unset
        if isinstance(self.last_attempt_at, Unset):
            last_attempt_at = UNSET
        elif isinstance(self.last_attempt_at, datetime.datetime):
            last_attempt_at = self.last_attempt_at.isoformat()
        else:
            last_attempt_at = self.last_attempt_at

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        last_status: int | None | Unset
        if isinstance(self.last_status, Unset):
            last_status = UNSET
        else:
            last_status = self.last_status

        last_success_at: None | str | Unset
        if isinstance(self.last_success_at, Unset):
            last_success_at = UNSET
        elif isinstance(self.last_success_at, datetime.datetime):
            last_success_at = self.last_success_at.isoformat()
        else:
            last_success_at = self.last_success_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "consecutive_failures": consecutive_failures,
        })
        if failing_since is not UNSET:
            field_dict["failing_since"] = failing_since
        if last_attempt_at is not UNSET:
            field_dict["last_attempt_at"] = last_attempt_at
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if last_status is not UNSET:
            field_dict["last_status"] = last_status
        if last_success_at is not UNSET:
            field_dict["last_success_at"] = last_success_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consecutive_failures = d.pop("consecutive_failures")

        def _parse_failing_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failing_since_type_0 = datetime.datetime.fromisoformat(data)



                return failing_since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        failing_since = _parse_failing_since(d.pop("failing_since", UNSET))


        def _parse_last_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_attempt_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_attempt_at = _parse_last_attempt_at(d.pop("last_attempt_at", UNSET))


        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))


        def _parse_last_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_status = _parse_last_status(d.pop("last_status", UNSET))


        def _parse_last_success_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_success_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_success_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_success_at = _parse_last_success_at(d.pop("last_success_at", UNSET))


        webhook_health = cls(
            consecutive_failures=consecutive_failures,
            failing_since=failing_since,
            last_attempt_at=last_attempt_at,
            last_error=last_error,
            last_status=last_status,
            last_success_at=last_success_at,
        )


        webhook_health.additional_properties = d
        return webhook_health

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
