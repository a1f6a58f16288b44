from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.allocation_status import AllocationStatus
from ..models.strategy import Strategy
from ..models.unit_strategy import UnitStrategy
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.allocation_line import AllocationLine





T = TypeVar("T", bound="Allocation")



@_attrs_define
class Allocation:
    """ An allocation: stock taken for good (all of its lines or none).

        Attributes:
            created_at (datetime.datetime): When it was made (UTC).
            id (str): Server-generated id (UUID v4 text).
            lines (list[AllocationLine]): The lines, sorted by SKU (the order they were locked in).
            status (AllocationStatus): The status of an allocation or a unit claim: `allocated` (taken for good), or `held`
                (a
                unit claim made with `hold_ttl_ms`, until it is confirmed, released or expires).
            strategy (Strategy | UnitStrategy): The strategy that took a hold's or an allocation's quantity: a stock
                [`Strategy`] for
                stock lines, a [`UnitStrategy`] for units. On the wire it is the bare name; `serialized`
                (SQLite's name in both families) reads back as the stock one, so a reader that needs the
                family takes it from the hold's `kind`.
     """

    created_at: datetime.datetime
    id: str
    lines: list[AllocationLine]
    status: AllocationStatus
    strategy: Strategy | UnitStrategy
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.allocation_line import AllocationLine # noqa: PLC0415
        created_at = self.created_at.isoformat()

        id = self.id

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)



        status = self.status.value

        strategy: str
        if isinstance(self.strategy, Strategy):
            strategy = self.strategy.value
        else:
            strategy = self.strategy.value



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "id": id,
            "lines": lines,
            "status": status,
            "strategy": strategy,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allocation_line import AllocationLine # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = d.pop("id")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = AllocationLine.from_dict(lines_item_data)



            lines.append(lines_item)


        status = AllocationStatus(d.pop("status"))




        def _parse_strategy(data: object) -> Strategy | UnitStrategy:
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_taken_with_type_0 = Strategy(data)



                return componentsschemas_taken_with_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, str):
                raise TypeError()
            componentsschemas_taken_with_type_1 = UnitStrategy(data)



            return componentsschemas_taken_with_type_1

        strategy = _parse_strategy(d.pop("strategy"))


        allocation = cls(
            created_at=created_at,
            id=id,
            lines=lines,
            status=status,
            strategy=strategy,
        )


        allocation.additional_properties = d
        return allocation

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
