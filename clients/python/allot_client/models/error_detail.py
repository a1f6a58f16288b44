from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.reason_type_0 import ReasonType0
  from ..models.reason_type_1 import ReasonType1
  from ..models.reason_type_2 import ReasonType2
  from ..models.reason_type_3 import ReasonType3
  from ..models.reason_type_4 import ReasonType4
  from ..models.reason_type_5 import ReasonType5
  from ..models.reason_type_6 import ReasonType6
  from ..models.reason_type_7 import ReasonType7
  from ..models.reason_type_8 import ReasonType8
  from ..models.reason_type_9 import ReasonType9





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
            free (int | None | Unset): `capacity_exceeded`: what that slot has free.
            limit (None | str | Unset): `limit_exceeded`: the limit's name.
            line (int | None | Unset): A hold's refusal about one of its lines (`insufficient_stock`, `wrong_tracking`,
                `not_found` of a SKU): that line's index in the request's `lines` (`lines[i]`).
            location (None | str | Unset): `compare_failed`: the location compared.
            max_ (int | None | Unset): `limit_exceeded`: the limit's value.
            missing_scope (None | str | Unset): `forbidden` for a key: the scope it lacks.
            pool (None | str | Unset): `capacity_exceeded`: the pool whose slot it is (absent: the resource's own).
            reason (None | ReasonType0 | ReasonType1 | ReasonType2 | ReasonType3 | ReasonType4 | ReasonType5 | ReasonType6 |
                ReasonType7 | ReasonType8 | ReasonType9 | Unset):
            request_id (None | str | Unset): The request's id (as in the `x-request-id` header): what to quote to an
                operator, who
                finds the details in the server log under it.
            requested (int | None | Unset): `insufficient_stock`: what it asked for.
            retry_after_ms (int | None | Unset): `contention`: suggested wait, ms (also in `Retry-After`, seconds).
            rule (None | str | Unset): `capacity_exceeded` / `rule_violated`: the rule (`capacity`, `min_slots`, …).
            sku (None | str | Unset): `insufficient_stock`: the first short SKU.
            slot_start (None | str | Unset): `capacity_exceeded`: the first slot without room.
     """

    code: str
    message: str
    available: int | None | Unset = UNSET
    conflicting_booking_id: None | str | Unset = UNSET
    current_on_hand: int | None | Unset = UNSET
    free: int | None | Unset = UNSET
    limit: None | str | Unset = UNSET
    line: int | None | Unset = UNSET
    location: None | str | Unset = UNSET
    max_: int | None | Unset = UNSET
    missing_scope: None | str | Unset = UNSET
    pool: None | str | Unset = UNSET
    reason: None | ReasonType0 | ReasonType1 | ReasonType2 | ReasonType3 | ReasonType4 | ReasonType5 | ReasonType6 | ReasonType7 | ReasonType8 | ReasonType9 | Unset = UNSET
    request_id: None | str | Unset = UNSET
    requested: int | None | Unset = UNSET
    retry_after_ms: int | None | Unset = UNSET
    rule: None | str | Unset = UNSET
    sku: None | str | Unset = UNSET
    slot_start: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.reason_type_0 import ReasonType0 # noqa: PLC0415
        from ..models.reason_type_1 import ReasonType1 # noqa: PLC0415
        from ..models.reason_type_2 import ReasonType2 # noqa: PLC0415
        from ..models.reason_type_3 import ReasonType3 # noqa: PLC0415
        from ..models.reason_type_4 import ReasonType4 # noqa: PLC0415
        from ..models.reason_type_5 import ReasonType5 # noqa: PLC0415
        from ..models.reason_type_6 import ReasonType6 # noqa: PLC0415
        from ..models.reason_type_7 import ReasonType7 # noqa: PLC0415
        from ..models.reason_type_8 import ReasonType8 # noqa: PLC0415
        from ..models.reason_type_9 import ReasonType9 # noqa: PLC0415
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

        free: int | None | Unset
        if isinstance(self.free, Unset):
            free = UNSET
        else:
            free = self.free

        limit: None | str | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        line: int | None | Unset
        if isinstance(self.line, Unset):
            line = UNSET
        else:
            line = self.line

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

        pool: None | str | Unset
        if isinstance(self.pool, Unset):
            pool = UNSET
        else:
            pool = self.pool

        reason: dict[str, Any] | None | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        elif isinstance(self.reason, ReasonType0):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType1):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType2):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType3):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType4):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType5):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType6):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType7):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType8):
            reason = self.reason.to_dict()
        elif isinstance(self.reason, ReasonType9):
            reason = self.reason.to_dict()
        else:
            reason = self.reason

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

        rule: None | str | Unset
        if isinstance(self.rule, Unset):
            rule = UNSET
        else:
            rule = self.rule

        sku: None | str | Unset
        if isinstance(self.sku, Unset):
            sku = UNSET
        else:
            sku = self.sku

        slot_start: None | str | Unset
        if isinstance(self.slot_start, Unset):
            slot_start = UNSET
        else:
            slot_start = self.slot_start


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
        if free is not UNSET:
            field_dict["free"] = free
        if limit is not UNSET:
            field_dict["limit"] = limit
        if line is not UNSET:
            field_dict["line"] = line
        if location is not UNSET:
            field_dict["location"] = location
        if max_ is not UNSET:
            field_dict["max"] = max_
        if missing_scope is not UNSET:
            field_dict["missing_scope"] = missing_scope
        if pool is not UNSET:
            field_dict["pool"] = pool
        if reason is not UNSET:
            field_dict["reason"] = reason
        if request_id is not UNSET:
            field_dict["request_id"] = request_id
        if requested is not UNSET:
            field_dict["requested"] = requested
        if retry_after_ms is not UNSET:
            field_dict["retry_after_ms"] = retry_after_ms
        if rule is not UNSET:
            field_dict["rule"] = rule
        if sku is not UNSET:
            field_dict["sku"] = sku
        if slot_start is not UNSET:
            field_dict["slot_start"] = slot_start

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reason_type_0 import ReasonType0 # noqa: PLC0415
        from ..models.reason_type_1 import ReasonType1 # noqa: PLC0415
        from ..models.reason_type_2 import ReasonType2 # noqa: PLC0415
        from ..models.reason_type_3 import ReasonType3 # noqa: PLC0415
        from ..models.reason_type_4 import ReasonType4 # noqa: PLC0415
        from ..models.reason_type_5 import ReasonType5 # noqa: PLC0415
        from ..models.reason_type_6 import ReasonType6 # noqa: PLC0415
        from ..models.reason_type_7 import ReasonType7 # noqa: PLC0415
        from ..models.reason_type_8 import ReasonType8 # noqa: PLC0415
        from ..models.reason_type_9 import ReasonType9 # noqa: PLC0415
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


        def _parse_free(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        free = _parse_free(d.pop("free", UNSET))


        def _parse_limit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))


        def _parse_line(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        line = _parse_line(d.pop("line", UNSET))


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


        def _parse_pool(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        pool = _parse_pool(d.pop("pool", UNSET))


        def _parse_reason(data: object) -> None | ReasonType0 | ReasonType1 | ReasonType2 | ReasonType3 | ReasonType4 | ReasonType5 | ReasonType6 | ReasonType7 | ReasonType8 | ReasonType9 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_0 = ReasonType0.from_dict(data)



                return componentsschemas_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_1 = ReasonType1.from_dict(data)



                return componentsschemas_reason_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_2 = ReasonType2.from_dict(data)



                return componentsschemas_reason_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_3 = ReasonType3.from_dict(data)



                return componentsschemas_reason_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_4 = ReasonType4.from_dict(data)



                return componentsschemas_reason_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_5 = ReasonType5.from_dict(data)



                return componentsschemas_reason_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_6 = ReasonType6.from_dict(data)



                return componentsschemas_reason_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_7 = ReasonType7.from_dict(data)



                return componentsschemas_reason_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_8 = ReasonType8.from_dict(data)



                return componentsschemas_reason_type_8
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_9 = ReasonType9.from_dict(data)



                return componentsschemas_reason_type_9
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReasonType0 | ReasonType1 | ReasonType2 | ReasonType3 | ReasonType4 | ReasonType5 | ReasonType6 | ReasonType7 | ReasonType8 | ReasonType9 | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))


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


        def _parse_rule(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rule = _parse_rule(d.pop("rule", UNSET))


        def _parse_sku(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sku = _parse_sku(d.pop("sku", UNSET))


        def _parse_slot_start(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        slot_start = _parse_slot_start(d.pop("slot_start", UNSET))


        error_detail = cls(
            code=code,
            message=message,
            available=available,
            conflicting_booking_id=conflicting_booking_id,
            current_on_hand=current_on_hand,
            free=free,
            limit=limit,
            line=line,
            location=location,
            max_=max_,
            missing_scope=missing_scope,
            pool=pool,
            reason=reason,
            request_id=request_id,
            requested=requested,
            retry_after_ms=retry_after_ms,
            rule=rule,
            sku=sku,
            slot_start=slot_start,
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
