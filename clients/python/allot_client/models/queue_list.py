from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.queue_counts import QueueCounts





T = TypeVar("T", bound="QueueList")



@_attrs_define
class QueueList:
    """ `GET /v1/queues` answer.

        Attributes:
            queues (list[QueueCounts]): Queues by name, each with its counts by state.
            next_ (None | str | Unset): The last queue of this page, to send as `after` for the next; `null` on the last
                page.
     """

    queues: list[QueueCounts]
    next_: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.queue_counts import QueueCounts # noqa: PLC0415
        queues = []
        for queues_item_data in self.queues:
            queues_item = queues_item_data.to_dict()
            queues.append(queues_item)



        next_: None | str | Unset
        if isinstance(self.next_, Unset):
            next_ = UNSET
        else:
            next_ = self.next_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "queues": queues,
        })
        if next_ is not UNSET:
            field_dict["next"] = next_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_counts import QueueCounts # noqa: PLC0415
        d = dict(src_dict)
        queues = []
        _queues = d.pop("queues")
        for queues_item_data in (_queues):
            queues_item = QueueCounts.from_dict(queues_item_data)



            queues.append(queues_item)


        def _parse_next_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_ = _parse_next_(d.pop("next", UNSET))


        queue_list = cls(
            queues=queues,
            next_=next_,
        )


        queue_list.additional_properties = d
        return queue_list

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
