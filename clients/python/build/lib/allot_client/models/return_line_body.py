from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.return_state import ReturnState
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ReturnLineBody")



@_attrs_define
class ReturnLineBody:
    """ One line of `POST /v1/allocations/{id}/returns`.

        Attributes:
            quantity (int): Units, 1..=what is left of the allocation's line.
            sku (str): A SKU of the allocation (count-tracked: units come back by a cancel).
            location (None | str | Unset): Where a sellable return goes (default: the first location the line came from).
            state (None | ReturnState | Unset):
     """

    quantity: int
    sku: str
    location: None | str | Unset = UNSET
    state: None | ReturnState | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        sku = self.sku

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, ReturnState):
            state = self.state.value
        else:
            state = self.state


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "quantity": quantity,
            "sku": sku,
        })
        if location is not UNSET:
            field_dict["location"] = location
        if state is not UNSET:
            field_dict["state"] = state

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        sku = d.pop("sku")

        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_state(data: object) -> None | ReturnState | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_type_1 = ReturnState(data)



                return state_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReturnState | Unset, data)

        state = _parse_state(d.pop("state", UNSET))


        return_line_body = cls(
            quantity=quantity,
            sku=sku,
            location=location,
            state=state,
        )

        return return_line_body

