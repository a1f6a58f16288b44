from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.component import Component





T = TypeVar("T", bound="KitBody")



@_attrs_define
class KitBody:
    """ `PUT /v1/kits/{kit}` body.

        Attributes:
            components (list[Component]): 1..=`max_lines` components, each SKU once.
     """

    components: list[Component]





    def to_dict(self) -> dict[str, Any]:
        from ..models.component import Component # noqa: PLC0415
        components = []
        for components_item_data in self.components:
            components_item = components_item_data.to_dict()
            components.append(components_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "components": components,
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


        kit_body = cls(
            components=components,
        )

        return kit_body

