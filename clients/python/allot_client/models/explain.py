from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.reason_type_0 import ReasonType0
  from ..models.reason_type_1 import ReasonType1
  from ..models.reason_type_2 import ReasonType2
  from ..models.reason_type_3 import ReasonType3
  from ..models.reason_type_4 import ReasonType4
  from ..models.reason_type_5 import ReasonType5
  from ..models.reason_type_6 import ReasonType6
  from ..models.reason_type_7 import ReasonType7
  from ..models.reason_type_8 import ReasonType8
  from ..models.reason_type_9 import ReasonType9





T = TypeVar("T", bound="Explain")



@_attrs_define
class Explain:
    """ `GET /v1/resources/{resource}/explain` body.

        Attributes:
            as_of (datetime.datetime): The snapshot it was read at: exact then, and only then.
            bookable (bool): Whether the booking would be taken now (no reasons).
            reasons (list[ReasonType0 | ReasonType1 | ReasonType2 | ReasonType3 | ReasonType4 | ReasonType5 | ReasonType6 |
                ReasonType7 | ReasonType8 | ReasonType9]): Every reason it would be refused: the rules, then each full slot of
                the resource,
                then of each pool.
     """

    as_of: datetime.datetime
    bookable: bool
    reasons: list[ReasonType0 | ReasonType1 | ReasonType2 | ReasonType3 | ReasonType4 | ReasonType5 | ReasonType6 | ReasonType7 | ReasonType8 | ReasonType9]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.reason_type_0 import ReasonType0 # noqa: PLC0415
        from ..models.reason_type_1 import ReasonType1 # noqa: PLC0415
        from ..models.reason_type_2 import ReasonType2 # noqa: PLC0415
        from ..models.reason_type_3 import ReasonType3 # noqa: PLC0415
        from ..models.reason_type_4 import ReasonType4 # noqa: PLC0415
        from ..models.reason_type_5 import ReasonType5 # noqa: PLC0415
        from ..models.reason_type_6 import ReasonType6 # noqa: PLC0415
        from ..models.reason_type_7 import ReasonType7 # noqa: PLC0415
        from ..models.reason_type_8 import ReasonType8 # noqa: PLC0415
        from ..models.reason_type_9 import ReasonType9 # noqa: PLC0415
        as_of = self.as_of.isoformat()

        bookable = self.bookable

        reasons = []
        for reasons_item_data in self.reasons:
            reasons_item: dict[str, Any]
            if isinstance(reasons_item_data, ReasonType0):
                reasons_item = reasons_item_data.to_dict()
            elif isinstance(reasons_item_data, ReasonType1):
                reasons_item = reasons_item_data.to_dict()
            elif isinstance(reasons_item_data, ReasonType2):
                reasons_item = reasons_item_data.to_dict()
            elif isinstance(reasons_item_data, ReasonType3):
                reasons_item = reasons_item_data.to_dict()
            elif isinstance(reasons_item_data, ReasonType4):
                reasons_item = reasons_item_data.to_dict()
            elif isinstance(reasons_item_data, ReasonType5):
                reasons_item = reasons_item_data.to_dict()
            elif isinstance(reasons_item_data, ReasonType6):
                reasons_item = reasons_item_data.to_dict()
            elif isinstance(reasons_item_data, ReasonType7):
                reasons_item = reasons_item_data.to_dict()
            elif isinstance(reasons_item_data, ReasonType8):
                reasons_item = reasons_item_data.to_dict()
            else:
                reasons_item = reasons_item_data.to_dict()

            reasons.append(reasons_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "as_of": as_of,
            "bookable": bookable,
            "reasons": reasons,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reason_type_0 import ReasonType0 # noqa: PLC0415
        from ..models.reason_type_1 import ReasonType1 # noqa: PLC0415
        from ..models.reason_type_2 import ReasonType2 # noqa: PLC0415
        from ..models.reason_type_3 import ReasonType3 # noqa: PLC0415
        from ..models.reason_type_4 import ReasonType4 # noqa: PLC0415
        from ..models.reason_type_5 import ReasonType5 # noqa: PLC0415
        from ..models.reason_type_6 import ReasonType6 # noqa: PLC0415
        from ..models.reason_type_7 import ReasonType7 # noqa: PLC0415
        from ..models.reason_type_8 import ReasonType8 # noqa: PLC0415
        from ..models.reason_type_9 import ReasonType9 # noqa: PLC0415
        d = dict(src_dict)
        as_of = datetime.datetime.fromisoformat(d.pop("as_of"))




        bookable = d.pop("bookable")

        reasons = []
        _reasons = d.pop("reasons")
        for reasons_item_data in (_reasons):
            def _parse_reasons_item(data: object) -> ReasonType0 | ReasonType1 | ReasonType2 | ReasonType3 | ReasonType4 | ReasonType5 | ReasonType6 | ReasonType7 | ReasonType8 | ReasonType9:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_0 = ReasonType0.from_dict(data)



                    return componentsschemas_reason_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_1 = ReasonType1.from_dict(data)



                    return componentsschemas_reason_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_2 = ReasonType2.from_dict(data)



                    return componentsschemas_reason_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_3 = ReasonType3.from_dict(data)



                    return componentsschemas_reason_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_4 = ReasonType4.from_dict(data)



                    return componentsschemas_reason_type_4
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_5 = ReasonType5.from_dict(data)



                    return componentsschemas_reason_type_5
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_6 = ReasonType6.from_dict(data)



                    return componentsschemas_reason_type_6
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_7 = ReasonType7.from_dict(data)



                    return componentsschemas_reason_type_7
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_reason_type_8 = ReasonType8.from_dict(data)



                    return componentsschemas_reason_type_8
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_reason_type_9 = ReasonType9.from_dict(data)



                return componentsschemas_reason_type_9

            reasons_item = _parse_reasons_item(reasons_item_data)

            reasons.append(reasons_item)


        explain = cls(
            as_of=as_of,
            bookable=bookable,
            reasons=reasons,
        )


        explain.additional_properties = d
        return explain

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
