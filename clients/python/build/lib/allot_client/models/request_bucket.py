from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RequestBucket")



@_attrs_define
class RequestBucket:
    """ One bucket as `GET /v1/stats` shows it.

        Attributes:
            latency_us_p50 (int): Median latency, µs (0 without requests).
            latency_us_p99 (int): 99th percentile latency, µs (0 without requests).
            requests (int): Requests answered.
            server_errors (int): Of them, answered `5xx`.
            start_s (int): Seconds since the instance started at the bucket's start.
     """

    latency_us_p50: int
    latency_us_p99: int
    requests: int
    server_errors: int
    start_s: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        latency_us_p50 = self.latency_us_p50

        latency_us_p99 = self.latency_us_p99

        requests = self.requests

        server_errors = self.server_errors

        start_s = self.start_s


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "latency_us_p50": latency_us_p50,
            "latency_us_p99": latency_us_p99,
            "requests": requests,
            "server_errors": server_errors,
            "start_s": start_s,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        latency_us_p50 = d.pop("latency_us_p50")

        latency_us_p99 = d.pop("latency_us_p99")

        requests = d.pop("requests")

        server_errors = d.pop("server_errors")

        start_s = d.pop("start_s")

        request_bucket = cls(
            latency_us_p50=latency_us_p50,
            latency_us_p99=latency_us_p99,
            requests=requests,
            server_errors=server_errors,
            start_s=start_s,
        )


        request_bucket.additional_properties = d
        return request_bucket

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
