from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.source import Source





T = TypeVar("T", bound="AllocationLine")



@_attrs_define
class AllocationLine:
    """ One line of an allocation or hold as the server keeps and answers it: a SKU and how many
    units, the location it was pinned to, where they came from and how much came back. Only
    the server makes one (from a validated [`LineBody`], or from stored rows): no request
    type contains it.

        Attributes:
            quantity (int): Units, >= 1.
            sku (str): The SKU.
            backordered (int | None | Unset): Units the line still owes, when it was backordered ([`crate::backorder`]):
                what its
                `from` does not yet cover of `quantity` (0 once filled, or once a cancel dropped it);
                absent on a line that never owed.
            from_ (list[Source] | Unset): How much came from each location, in the order taken (a unit claim's lines have
                none:
                its units carry their location).
            location (None | str | Unset): The location the request pinned the line to, if it did.
            returned (int | Unset): How much of the line came back by returns (sellable and damaged), derived from the
                allocation's return records when it is read; what is left of it is
                `quantity - returned`.
     """

    quantity: int
    sku: str
    backordered: int | None | Unset = UNSET
    from_: list[Source] | Unset = UNSET
    location: None | str | Unset = UNSET
    returned: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.source import Source # noqa: PLC0415
        quantity = self.quantity

        sku = self.sku

        backordered: int | None | Unset
        if isinstance(self.backordered, Unset):
            backordered = UNSET
        else:
            backordered = self.backordered

        from_: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.from_, Unset):
            from_ = []
            for from_item_data in self.from_:
                from_item = from_item_data.to_dict()
                from_.append(from_item)



        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        returned = self.returned


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "quantity": quantity,
            "sku": sku,
        })
        if backordered is not UNSET:
            field_dict["backordered"] = backordered
        if from_ is not UNSET:
            field_dict["from"] = from_
        if location is not UNSET:
            field_dict["location"] = location
        if returned is not UNSET:
            field_dict["returned"] = returned

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.source import Source # noqa: PLC0415
        d = dict(src_dict)
        quantity = d.pop("quantity")

        sku = d.pop("sku")

        def _parse_backordered(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        backordered = _parse_backordered(d.pop("backordered", UNSET))


        _from_ = d.pop("from", UNSET)
        from_: list[Source] | Unset = UNSET
        if _from_ is not UNSET:
            from_ = []
            for from_item_data in _from_:
                from_item = Source.from_dict(from_item_data)



                from_.append(from_item)


        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        returned = d.pop("returned", UNSET)

        allocation_line = cls(
            quantity=quantity,
            sku=sku,
            backordered=backordered,
            from_=from_,
            location=location,
            returned=returned,
        )


        allocation_line.additional_properties = d
        return allocation_line

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
