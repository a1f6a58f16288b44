from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.operation_body_type_0_op import OperationBodyType0Op
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.allocation_body import AllocationBody





T = TypeVar("T", bound="OperationBodyType0")



@_attrs_define
class OperationBodyType0:
    """ `POST /v1/allocations` with `body`.

        Attributes:
            body (AllocationBody): `POST /v1/allocations` body.
            op (OperationBodyType0Op):
            idempotency_key (None | str | Unset): The operation's `Idempotency-Key` (1..=`max_idempotency_key_len` printable
                ASCII).
     """

    body: AllocationBody
    op: OperationBodyType0Op
    idempotency_key: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.allocation_body import AllocationBody # noqa: PLC0415
        body = self.body.to_dict()

        op = self.op.value

        idempotency_key: None | str | Unset
        if isinstance(self.idempotency_key, Unset):
            idempotency_key = UNSET
        else:
            idempotency_key = self.idempotency_key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "body": body,
            "op": op,
        })
        if idempotency_key is not UNSET:
            field_dict["idempotency_key"] = idempotency_key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allocation_body import AllocationBody # noqa: PLC0415
        d = dict(src_dict)
        body = AllocationBody.from_dict(d.pop("body"))




        op = OperationBodyType0Op(d.pop("op"))




        def _parse_idempotency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_key = _parse_idempotency_key(d.pop("idempotency_key", UNSET))


        operation_body_type_0 = cls(
            body=body,
            op=op,
            idempotency_key=idempotency_key,
        )


        operation_body_type_0.additional_properties = d
        return operation_body_type_0

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
