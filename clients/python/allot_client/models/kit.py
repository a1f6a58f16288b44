from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.component import Component





T = TypeVar("T", bound="Kit")



@_attrs_define
class Kit:
    """ A kit: its name and components, sorted by SKU.

        Attributes:
            components (list[Component]): Its components, by SKU.
            kit (str): The kit's name (a name as a SKU's).
     """

    components: list[Component]
    kit: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.component import Component # noqa: PLC0415
        components = []
        for components_item_data in self.components:
            components_item = components_item_data.to_dict()
            components.append(components_item)



        kit = self.kit


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "components": components,
            "kit": kit,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.component import Component # noqa: PLC0415
        d = dict(src_dict)
        components = []
        _components = d.pop("components")
        for components_item_data in (_components):
            components_item = Component.from_dict(components_item_data)



            components.append(components_item)


        kit = d.pop("kit")

        kit = cls(
            components=components,
            kit=kit,
        )


        kit.additional_properties = d
        return kit

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
