from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="AllocationOutcomes")



@_attrs_define
class AllocationOutcomes:
    """ How an allocation request ended (`POST /v1/allocations`, `POST /v1/unit-allocations`,
    `POST /v1/holds/{id}/confirm`), by the answer's status.

        Attributes:
            failed (int): `5xx`: our fault or a dependency unavailable.
            made (int): `2xx`: allocated (or replayed).
            refused (int): `409`: refused (not enough stock, a conflict of state or idempotency key).
            rejected (int): Other `4xx`: the request was invalid, unauthorized or not found.
     """

    failed: int
    made: int
    refused: int
    rejected: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        failed = self.failed

        made = self.made

        refused = self.refused

        rejected = self.rejected


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "failed": failed,
            "made": made,
            "refused": refused,
            "rejected": rejected,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        failed = d.pop("failed")

        made = d.pop("made")

        refused = d.pop("refused")

        rejected = d.pop("rejected")

        allocation_outcomes = cls(
            failed=failed,
            made=made,
            refused=refused,
            rejected=rejected,
        )


        allocation_outcomes.additional_properties = d
        return allocation_outcomes

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
