from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.operation_result_body import OperationResultBody





T = TypeVar("T", bound="OperationResult")



@_attrs_define
class OperationResult:
    """ One operation's result: what its own endpoint would have answered.

        Attributes:
            body (OperationResultBody): The endpoint's body: the allocation or hold, or `{"error": …}`.
            status (int): The HTTP status the endpoint would have sent (201 a new allocation or hold, 200 a
                confirm, release or cancel, 4xx/5xx an error).
            replayed (bool | Unset): Whether it was replayed from its idempotency key (the endpoint's
                `Idempotent-Replayed: true`).
     """

    body: OperationResultBody
    status: int
    replayed: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.operation_result_body import OperationResultBody # noqa: PLC0415
        body = self.body.to_dict()

        status = self.status

        replayed = self.replayed


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "body": body,
            "status": status,
        })
        if replayed is not UNSET:
            field_dict["replayed"] = replayed

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.operation_result_body import OperationResultBody # noqa: PLC0415
        d = dict(src_dict)
        body = OperationResultBody.from_dict(d.pop("body"))




        status = d.pop("status")

        replayed = d.pop("replayed", UNSET)

        operation_result = cls(
            body=body,
            status=status,
            replayed=replayed,
        )


        operation_result.additional_properties = d
        return operation_result

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
