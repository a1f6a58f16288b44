from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.audit_object import AuditObject





T = TypeVar("T", bound="AuditViolation")



@_attrs_define
class AuditViolation:
    """ One SKU's (or one unit claim's) broken rule.

        Attributes:
            problem (str): What is wrong, in words.
            sku (str): The SKU.
            tenant (str): The tenant the SKU belongs to.
            object_ (AuditObject | None | Unset):
     """

    problem: str
    sku: str
    tenant: str
    object_: AuditObject | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_object import AuditObject # noqa: PLC0415
        problem = self.problem

        sku = self.sku

        tenant = self.tenant

        object_: dict[str, Any] | None | Unset
        if isinstance(self.object_, Unset):
            object_ = UNSET
        elif isinstance(self.object_, AuditObject):
            object_ = self.object_.to_dict()
        else:
            object_ = self.object_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "problem": problem,
            "sku": sku,
            "tenant": tenant,
        })
        if object_ is not UNSET:
            field_dict["object"] = object_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_object import AuditObject # noqa: PLC0415
        d = dict(src_dict)
        problem = d.pop("problem")

        sku = d.pop("sku")

        tenant = d.pop("tenant")

        def _parse_object_(data: object) -> AuditObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                object_type_1 = AuditObject.from_dict(data)



                return object_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuditObject | None | Unset, data)

        object_ = _parse_object_(d.pop("object", UNSET))


        audit_violation = cls(
            problem=problem,
            sku=sku,
            tenant=tenant,
            object_=object_,
        )


        audit_violation.additional_properties = d
        return audit_violation

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
