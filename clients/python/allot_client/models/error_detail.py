from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ErrorDetail")



@_attrs_define
class ErrorDetail:
    """ The inner error object; details depend on the code.

        Attributes:
            code (str): Stable snake_case code (listed in README.md, "Errors").
            message (str): Human-readable text.
            available (int | None | Unset): `insufficient_stock`: what was available.
            conflicting_booking_id (None | str | Unset): `booking_overlap`: the blocking booking in the way, when known.
            current_on_hand (int | None | Unset): `compare_failed`: the on hand there now.
            limit (None | str | Unset): `limit_exceeded`: the limit's name.
            location (None | str | Unset): `compare_failed`: the location compared.
            max_ (int | None | Unset): `limit_exceeded`: the limit's value.
            missing_scope (None | str | Unset): `forbidden` for a key: the scope it lacks.
            request_id (None | str | Unset): The request's id (as in the `x-request-id` header): what to quote to an
                operator, who
                finds the details in the server log under it.
            requested (int | None | Unset): `insufficient_stock`: what it asked for.
            retry_after_ms (int | None | Unset): `contention`: suggested wait, ms (also in `Retry-After`, seconds).
            sku (None | str | Unset): `insufficient_stock`: the first short SKU.
     """

    code: str
    message: str
    available: int | None | Unset = UNSET
    conflicting_booking_id: None | str | Unset = UNSET
    current_on_hand: int | None | Unset = UNSET
    limit: None | str | Unset = UNSET
    location: None | str | Unset = UNSET
    max_: int | None | Unset = UNSET
    missing_scope: None | str | Unset = UNSET
    request_id: None | str | Unset = UNSET
    requested: int | None | Unset = UNSET
    retry_after_ms: int | None | Unset = UNSET
    sku: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        code = self.code

        message = self.message

        available: int | None | Unset
        if isinstance(self.available, Unset):
            available = UNSET
        else:
            available = self.available

        conflicting_booking_id: None | str | Unset
        if isinstance(self.conflicting_booking_id, Unset):
            conflicting_booking_id = UNSET
        else:
            conflicting_booking_id = self.conflicting_booking_id

        current_on_hand: int | None | Unset
        if isinstance(self.current_on_hand, Unset):
            current_on_hand = UNSET
        else:
            current_on_hand = self.current_on_hand

        limit: None | str | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        max_: int | None | Unset
        if isinstance(self.max_, Unset):
            max_ = UNSET
        else:
            max_ = self.max_

        missing_scope: None | str | Unset
        if isinstance(self.missing_scope, Unset):
            missing_scope = UNSET
        else:
            missing_scope = self.missing_scope

        request_id: None | str | Unset
        if isinstance(self.request_id, Unset):
            request_id = UNSET
        else:
            request_id = self.request_id

        requested: int | None | Unset
        if isinstance(self.requested, Unset):
            requested = UNSET
        else:
            requested = self.requested

        retry_after_ms: int | None | Unset
        if isinstance(self.retry_after_ms, Unset):
            retry_after_ms = UNSET
        else:
            retry_after_ms = self.retry_after_ms

        sku: None | str | Unset
        if isinstance(self.sku, Unset):
            sku = UNSET
        else:
            sku = self.sku


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "code": code,
            "message": message,
        })
        if available is not UNSET:
            field_dict["available"] = available
        if conflicting_booking_id is not UNSET:
            field_dict["conflicting_booking_id"] = conflicting_booking_id
        if current_on_hand is not UNSET:
            field_dict["current_on_hand"] = current_on_hand
        if limit is not UNSET:
            field_dict["limit"] = limit
        if location is not UNSET:
            field_dict["location"] = location
        if max_ is not UNSET:
            field_dict["max"] = max_
        if missing_scope is not UNSET:
            field_dict["missing_scope"] = missing_scope
        if request_id is not UNSET:
            field_dict["request_id"] = request_id
        if requested is not UNSET:
            field_dict["requested"] = requested
        if retry_after_ms is not UNSET:
            field_dict["retry_after_ms"] = retry_after_ms
        if sku is not UNSET:
            field_dict["sku"] = sku

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        message = d.pop("message")

        def _parse_available(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        available = _parse_available(d.pop("available", UNSET))


        def _parse_conflicting_booking_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        conflicting_booking_id = _parse_conflicting_booking_id(d.pop("conflicting_booking_id", UNSET))


        def _parse_current_on_hand(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        current_on_hand = _parse_current_on_hand(d.pop("current_on_hand", UNSET))


        def _parse_limit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))


        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_max_(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_ = _parse_max_(d.pop("max", UNSET))


        def _parse_missing_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        missing_scope = _parse_missing_scope(d.pop("missing_scope", UNSET))


        def _parse_request_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_id = _parse_request_id(d.pop("request_id", UNSET))


        def _parse_requested(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        requested = _parse_requested(d.pop("requested", UNSET))


        def _parse_retry_after_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_after_ms = _parse_retry_after_ms(d.pop("retry_after_ms", UNSET))


        def _parse_sku(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sku = _parse_sku(d.pop("sku", UNSET))


        error_detail = cls(
            code=code,
            message=message,
            available=available,
            conflicting_booking_id=conflicting_booking_id,
            current_on_hand=current_on_hand,
            limit=limit,
            location=location,
            max_=max_,
            missing_scope=missing_scope,
            request_id=request_id,
            requested=requested,
            retry_after_ms=retry_after_ms,
            sku=sku,
        )


        error_detail.additional_properties = d
        return error_detail

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
