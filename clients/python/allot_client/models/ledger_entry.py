from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.ledger_kind import LedgerKind
from ..models.stock_reason import StockReason
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="LedgerEntry")



@_attrs_define
class LedgerEntry:
    """ One change of a SKU's `on_hand` and/or `held`. The sum of a SKU's entries is its state.

        Attributes:
            at (datetime.datetime): When it was written (UTC).
            delta (int): Change of the sellable part of `on_hand` (available + held): a `moved` entry
                between two unsellable states reads 0.
            held_delta (int): Change of `held`.
            id (int): Increasing id, for paging with `after`.
            kind (LedgerKind): What a ledger entry records. Stored and sent as its snake_case name.
            reason (StockReason): Why stock changed (wire and stored name in `snake_case`).
            actor (None | str | Unset): Who made the change: the id of the API key (`None`: a server without keys, or the
                server itself, e.g. an expiry).
            location (None | str | Unset): The location whose stock changed (`None` for a unit-tracked SKU's entries).
            ref (None | str | Unset): The object that made it: the allocation, hold, transfer, receipt, move or return's
                allocation id (an adjustment written before reasons were a closed set: its free-text
                reason).
            reference (None | str | Unset): The absolute URI of the document behind it, if the request named one.
     """

    at: datetime.datetime
    delta: int
    held_delta: int
    id: int
    kind: LedgerKind
    reason: StockReason
    actor: None | str | Unset = UNSET
    location: None | str | Unset = UNSET
    ref: None | str | Unset = UNSET
    reference: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        delta = self.delta

        held_delta = self.held_delta

        id = self.id

        kind = self.kind.value

        reason = self.reason.value

        actor: None | str | Unset
        if isinstance(self.actor, Unset):
            actor = UNSET
        else:
            actor = self.actor

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        ref: None | str | Unset
        if isinstance(self.ref, Unset):
            ref = UNSET
        else:
            ref = self.ref

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "delta": delta,
            "held_delta": held_delta,
            "id": id,
            "kind": kind,
            "reason": reason,
        })
        if actor is not UNSET:
            field_dict["actor"] = actor
        if location is not UNSET:
            field_dict["location"] = location
        if ref is not UNSET:
            field_dict["ref"] = ref
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        delta = d.pop("delta")

        held_delta = d.pop("held_delta")

        id = d.pop("id")

        kind = LedgerKind(d.pop("kind"))




        reason = StockReason(d.pop("reason"))




        def _parse_actor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        actor = _parse_actor(d.pop("actor", UNSET))


        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ref = _parse_ref(d.pop("ref", UNSET))


        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))


        ledger_entry = cls(
            at=at,
            delta=delta,
            held_delta=held_delta,
            id=id,
            kind=kind,
            reason=reason,
            actor=actor,
            location=location,
            ref=ref,
            reference=reference,
        )


        ledger_entry.additional_properties = d
        return ledger_entry

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
