from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.return_state import ReturnState
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ReturnLine")



@_attrs_define
class ReturnLine:
    """ One line of a return, as made.

        Attributes:
            quantity (int): Units.
            sku (str): The SKU.
            state (ReturnState): What a returned unit is: back in stock, or not sellable.
            location (None | str | Unset): The location it went to (`None` in a request: the line's first origin).
     """

    quantity: int
    sku: str
    state: ReturnState
    location: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        quantity = self.quantity

        sku = self.sku

        state = self.state.value

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "quantity": quantity,
            "sku": sku,
            "state": state,
        })
        if location is not UNSET:
            field_dict["location"] = location

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        quantity = d.pop("quantity")

        sku = d.pop("sku")

        state = ReturnState(d.pop("state"))




        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        return_line = cls(
            quantity=quantity,
            sku=sku,
            state=state,
            location=location,
        )


        return_line.additional_properties = d
        return return_line

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
