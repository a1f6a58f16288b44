from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.audit_violation import AuditViolation
  from ..models.booking_overlap import BookingOverlap
  from ..models.job_violation import JobViolation
  from ..models.slot_overbooked import SlotOverbooked





T = TypeVar("T", bound="AuditReport")



@_attrs_define
class AuditReport:
    """ Result of `allot audit` and `GET /v1/audit`; clean when every list is empty.

        Attributes:
            ledger_entries (int): Ledger entries summed.
            skus_checked (int): SKUs checked.
            violations (list[AuditViolation]): Every SKU and unit-claim violation found (empty when clean).
            allocations_checked (int | Unset): Allocation lines (allocation, SKU) checked against their ledger entries and
                returns.
            booking_overlaps (list[BookingOverlap] | Unset): Pairs of blocking bookings of one resource that overlap (empty
                when clean; at most
                [`MAX_LISTED_OVERLAPS`]).
            booking_overlaps_truncated (bool | Unset): Whether more overlapping pairs exist than `booking_overlaps` lists.
            holds_checked (int | Unset): Hold lines (hold, SKU) checked against their ledger entries.
            job_violations (list[JobViolation] | Unset): Every job violation found (empty when clean).
            jobs_checked (int | Unset): Jobs checked.
            slot_overbookings (list[SlotOverbooked] | Unset): Slots over their capacity (empty when clean): see [`slots`].
            slots_checked (int | Unset): Slots of resources and pools that hold a booking, checked against their capacity.
            transfers_checked (int | Unset): Transfers checked.
     """

    ledger_entries: int
    skus_checked: int
    violations: list[AuditViolation]
    allocations_checked: int | Unset = UNSET
    booking_overlaps: list[BookingOverlap] | Unset = UNSET
    booking_overlaps_truncated: bool | Unset = UNSET
    holds_checked: int | Unset = UNSET
    job_violations: list[JobViolation] | Unset = UNSET
    jobs_checked: int | Unset = UNSET
    slot_overbookings: list[SlotOverbooked] | Unset = UNSET
    slots_checked: int | Unset = UNSET
    transfers_checked: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_violation import AuditViolation # noqa: PLC0415
        from ..models.booking_overlap import BookingOverlap # noqa: PLC0415
        from ..models.job_violation import JobViolation # noqa: PLC0415
        from ..models.slot_overbooked import SlotOverbooked # noqa: PLC0415
        ledger_entries = self.ledger_entries

        skus_checked = self.skus_checked

        violations = []
        for violations_item_data in self.violations:
            violations_item = violations_item_data.to_dict()
            violations.append(violations_item)



        allocations_checked = self.allocations_checked

        booking_overlaps: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.booking_overlaps, Unset):
            booking_overlaps = []
            for booking_overlaps_item_data in self.booking_overlaps:
                booking_overlaps_item = booking_overlaps_item_data.to_dict()
                booking_overlaps.append(booking_overlaps_item)



        booking_overlaps_truncated = self.booking_overlaps_truncated

        holds_checked = self.holds_checked

        job_violations: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.job_violations, Unset):
            job_violations = []
            for job_violations_item_data in self.job_violations:
                job_violations_item = job_violations_item_data.to_dict()
                job_violations.append(job_violations_item)



        jobs_checked = self.jobs_checked

        slot_overbookings: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.slot_overbookings, Unset):
            slot_overbookings = []
            for slot_overbookings_item_data in self.slot_overbookings:
                slot_overbookings_item = slot_overbookings_item_data.to_dict()
                slot_overbookings.append(slot_overbookings_item)



        slots_checked = self.slots_checked

        transfers_checked = self.transfers_checked


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "ledger_entries": ledger_entries,
            "skus_checked": skus_checked,
            "violations": violations,
        })
        if allocations_checked is not UNSET:
            field_dict["allocations_checked"] = allocations_checked
        if booking_overlaps is not UNSET:
            field_dict["booking_overlaps"] = booking_overlaps
        if booking_overlaps_truncated is not UNSET:
            field_dict["booking_overlaps_truncated"] = booking_overlaps_truncated
        if holds_checked is not UNSET:
            field_dict["holds_checked"] = holds_checked
        if job_violations is not UNSET:
            field_dict["job_violations"] = job_violations
        if jobs_checked is not UNSET:
            field_dict["jobs_checked"] = jobs_checked
        if slot_overbookings is not UNSET:
            field_dict["slot_overbookings"] = slot_overbookings
        if slots_checked is not UNSET:
            field_dict["slots_checked"] = slots_checked
        if transfers_checked is not UNSET:
            field_dict["transfers_checked"] = transfers_checked

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_violation import AuditViolation # noqa: PLC0415
        from ..models.booking_overlap import BookingOverlap # noqa: PLC0415
        from ..models.job_violation import JobViolation # noqa: PLC0415
        from ..models.slot_overbooked import SlotOverbooked # noqa: PLC0415
        d = dict(src_dict)
        ledger_entries = d.pop("ledger_entries")

        skus_checked = d.pop("skus_checked")

        violations = []
        _violations = d.pop("violations")
        for violations_item_data in (_violations):
            violations_item = AuditViolation.from_dict(violations_item_data)



            violations.append(violations_item)


        allocations_checked = d.pop("allocations_checked", UNSET)

        _booking_overlaps = d.pop("booking_overlaps", UNSET)
        booking_overlaps: list[BookingOverlap] | Unset = UNSET
        if _booking_overlaps is not UNSET:
            booking_overlaps = []
            for booking_overlaps_item_data in _booking_overlaps:
                booking_overlaps_item = BookingOverlap.from_dict(booking_overlaps_item_data)



                booking_overlaps.append(booking_overlaps_item)


        booking_overlaps_truncated = d.pop("booking_overlaps_truncated", UNSET)

        holds_checked = d.pop("holds_checked", UNSET)

        _job_violations = d.pop("job_violations", UNSET)
        job_violations: list[JobViolation] | Unset = UNSET
        if _job_violations is not UNSET:
            job_violations = []
            for job_violations_item_data in _job_violations:
                job_violations_item = JobViolation.from_dict(job_violations_item_data)



                job_violations.append(job_violations_item)


        jobs_checked = d.pop("jobs_checked", UNSET)

        _slot_overbookings = d.pop("slot_overbookings", UNSET)
        slot_overbookings: list[SlotOverbooked] | Unset = UNSET
        if _slot_overbookings is not UNSET:
            slot_overbookings = []
            for slot_overbookings_item_data in _slot_overbookings:
                slot_overbookings_item = SlotOverbooked.from_dict(slot_overbookings_item_data)



                slot_overbookings.append(slot_overbookings_item)


        slots_checked = d.pop("slots_checked", UNSET)

        transfers_checked = d.pop("transfers_checked", UNSET)

        audit_report = cls(
            ledger_entries=ledger_entries,
            skus_checked=skus_checked,
            violations=violations,
            allocations_checked=allocations_checked,
            booking_overlaps=booking_overlaps,
            booking_overlaps_truncated=booking_overlaps_truncated,
            holds_checked=holds_checked,
            job_violations=job_violations,
            jobs_checked=jobs_checked,
            slot_overbookings=slot_overbookings,
            slots_checked=slots_checked,
            transfers_checked=transfers_checked,
        )


        audit_report.additional_properties = d
        return audit_report

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
