from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.location import Location





T = TypeVar("T", bound="LocationList")



@_attrs_define
class LocationList:
    """ `GET /v1/locations` body.

        Attributes:
            locations (list[Location]): Every location of the caller's tenant by name, the built-in `default` included.
     """

    locations: list[Location]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.location import Location # noqa: PLC0415
        locations = []
        for locations_item_data in self.locations:
            locations_item = locations_item_data.to_dict()
            locations.append(locations_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "locations": locations,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.location import Location # noqa: PLC0415
        d = dict(src_dict)
        locations = []
        _locations = d.pop("locations")
        for locations_item_data in (_locations):
            locations_item = Location.from_dict(locations_item_data)



            locations.append(locations_item)


        location_list = cls(
            locations=locations,
        )


        location_list.additional_properties = d
        return location_list

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
