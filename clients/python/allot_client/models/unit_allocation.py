from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.allocation_status import AllocationStatus
from ..models.unit_strategy import UnitStrategy
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.unit import Unit





T = TypeVar("T", bound="UnitAllocation")



@_attrs_define
class UnitAllocation:
    """ The answer of a unit claim.

        Attributes:
            created_at (datetime.datetime): When it was made (UTC).
            id (str): Allocation id (or hold id when `status` is `held`).
            sku (str): The SKU.
            status (AllocationStatus): The status of an allocation or a unit claim: `allocated` (taken for good), or `held`
                (a
                unit claim made with `hold_ttl_ms`, until it is confirmed, released or expires).
            strategy (UnitStrategy): How a unit claim takes its rows. Sent as its wire name.
            units (list[Unit]): The units, in the claim's order.
            expires_at (datetime.datetime | None | Unset): When the hold lapses (holds only).
     """

    created_at: datetime.datetime
    id: str
    sku: str
    status: AllocationStatus
    strategy: UnitStrategy
    units: list[Unit]
    expires_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.unit import Unit # noqa: PLC0415
        created_at = self.created_at.isoformat()

        id = self.id

        sku = self.sku

        status = self.status.value

        strategy = self.strategy.value

        units = []
        for units_item_data in self.units:
            units_item = units_item_data.to_dict()
            units.append(units_item)



        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "id": id,
            "sku": sku,
            "status": status,
            "strategy": strategy,
            "units": units,
        })
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.unit import Unit # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = d.pop("id")

        sku = d.pop("sku")

        status = AllocationStatus(d.pop("status"))




        strategy = UnitStrategy(d.pop("strategy"))




        units = []
        _units = d.pop("units")
        for units_item_data in (_units):
            units_item = Unit.from_dict(units_item_data)



            units.append(units_item)


        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))


        unit_allocation = cls(
            created_at=created_at,
            id=id,
            sku=sku,
            status=status,
            strategy=strategy,
            units=units,
            expires_at=expires_at,
        )


        unit_allocation.additional_properties = d
        return unit_allocation

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
