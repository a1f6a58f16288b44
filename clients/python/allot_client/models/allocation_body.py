from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.placement_policy import PlacementPolicy
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.kit_line_body import KitLineBody
  from ..models.line_body import LineBody





T = TypeVar("T", bound="AllocationBody")



@_attrs_define
class AllocationBody:
    """ `POST /v1/allocations` body.

        Attributes:
            lines (list[KitLineBody | LineBody]): One line per SKU (a SKU may appear once in a plain line) or per kit (its
                components'
                demand summed with the plain lines' before anything is checked).
            allow_split (bool | None | Unset): Whether a line may be filled from several locations (default false: each line
                from
                one location).
            placement (list[str] | None | PlacementPolicy | Unset):
            strategy (None | str | Unset): Strategy name; the server default when absent.
     """

    lines: list[KitLineBody | LineBody]
    allow_split: bool | None | Unset = UNSET
    placement: list[str] | None | PlacementPolicy | Unset = UNSET
    strategy: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.kit_line_body import KitLineBody # noqa: PLC0415
        from ..models.line_body import LineBody # noqa: PLC0415
        lines = []
        for lines_item_data in self.lines:
            lines_item: dict[str, Any]
            if isinstance(lines_item_data, LineBody):
                lines_item = lines_item_data.to_dict()
            else:
                lines_item = lines_item_data.to_dict()

            lines.append(lines_item)



        allow_split: bool | None | Unset
        if isinstance(self.allow_split, Unset):
            allow_split = UNSET
        else:
            allow_split = self.allow_split

        placement: list[str] | None | str | Unset
        if isinstance(self.placement, Unset):
            placement = UNSET
        elif isinstance(self.placement, PlacementPolicy):
            placement = self.placement.value
        elif isinstance(self.placement, list):
            placement = self.placement


        else:
            placement = self.placement

        strategy: None | str | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        else:
            strategy = self.strategy


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "lines": lines,
        })
        if allow_split is not UNSET:
            field_dict["allow_split"] = allow_split
        if placement is not UNSET:
            field_dict["placement"] = placement
        if strategy is not UNSET:
            field_dict["strategy"] = strategy

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kit_line_body import KitLineBody # noqa: PLC0415
        from ..models.line_body import LineBody # noqa: PLC0415
        d = dict(src_dict)
        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            def _parse_lines_item(data: object) -> KitLineBody | LineBody:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_order_line_body_type_0 = LineBody.from_dict(data)



                    return componentsschemas_order_line_body_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_order_line_body_type_1 = KitLineBody.from_dict(data)



                return componentsschemas_order_line_body_type_1

            lines_item = _parse_lines_item(lines_item_data)

            lines.append(lines_item)


        def _parse_allow_split(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        allow_split = _parse_allow_split(d.pop("allow_split", UNSET))


        def _parse_placement(data: object) -> list[str] | None | PlacementPolicy | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_placement_body_type_0 = PlacementPolicy(data)



                return componentsschemas_placement_body_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_placement_body_type_1 = cast(list[str], data)

                return componentsschemas_placement_body_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | PlacementPolicy | Unset, data)

        placement = _parse_placement(d.pop("placement", UNSET))


        def _parse_strategy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        strategy = _parse_strategy(d.pop("strategy", UNSET))


        allocation_body = cls(
            lines=lines,
            allow_split=allow_split,
            placement=placement,
            strategy=strategy,
        )

        return allocation_body

