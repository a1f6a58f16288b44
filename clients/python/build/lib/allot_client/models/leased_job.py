from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="LeasedJob")



@_attrs_define
class LeasedJob:
    """ A job leased to a worker.

        Attributes:
            attempt (int): This attempt's number (1 for the first).
            id (int): Id.
            lease_expires_at (datetime.datetime): When the lease lapses unless extended by a heartbeat.
            lease_token (str): The token every transition of this attempt must carry.
            max_attempts (int): Attempts allowed.
            payload (Any): Payload.
            priority (int): Priority.
            traceparent (None | str | Unset): The W3C `traceparent` of the request that enqueued the job, when traces were
                on
                there: a worker's first attempt continues that trace, a retry links to it.
     """

    attempt: int
    id: int
    lease_expires_at: datetime.datetime
    lease_token: str
    max_attempts: int
    payload: Any
    priority: int
    traceparent: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        id = self.id

        lease_expires_at = self.lease_expires_at.isoformat()

        lease_token = self.lease_token

        max_attempts = self.max_attempts

        payload = self.payload

        priority = self.priority

        traceparent: None | str | Unset
        if isinstance(self.traceparent, Unset):
            traceparent = UNSET
        else:
            traceparent = self.traceparent


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempt": attempt,
            "id": id,
            "lease_expires_at": lease_expires_at,
            "lease_token": lease_token,
            "max_attempts": max_attempts,
            "payload": payload,
            "priority": priority,
        })
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        id = d.pop("id")

        lease_expires_at = datetime.datetime.fromisoformat(d.pop("lease_expires_at"))




        lease_token = d.pop("lease_token")

        max_attempts = d.pop("max_attempts")

        payload = d.pop("payload")

        priority = d.pop("priority")

        def _parse_traceparent(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        traceparent = _parse_traceparent(d.pop("traceparent", UNSET))


        leased_job = cls(
            attempt=attempt,
            id=id,
            lease_expires_at=lease_expires_at,
            lease_token=lease_token,
            max_attempts=max_attempts,
            payload=payload,
            priority=priority,
            traceparent=traceparent,
        )


        leased_job.additional_properties = d
        return leased_job

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
