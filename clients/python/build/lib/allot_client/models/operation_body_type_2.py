from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.operation_body_type_2_op import OperationBodyType2Op
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.confirm_body import ConfirmBody





T = TypeVar("T", bound="OperationBodyType2")



@_attrs_define
class OperationBodyType2:
    """ `POST /v1/holds/{id}/confirm`, with `body` when only part is confirmed.

        Attributes:
            id (str): The hold's id.
            op (OperationBodyType2Op):
            body (ConfirmBody | None | Unset):
            idempotency_key (None | str | Unset): The operation's `Idempotency-Key`.
     """

    id: str
    op: OperationBodyType2Op
    body: ConfirmBody | None | Unset = UNSET
    idempotency_key: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.confirm_body import ConfirmBody # noqa: PLC0415
        id = self.id

        op = self.op.value

        body: dict[str, Any] | None | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        elif isinstance(self.body, ConfirmBody):
            body = self.body.to_dict()
        else:
            body = self.body

        idempotency_key: None | str | Unset
        if isinstance(self.idempotency_key, Unset):
            idempotency_key = UNSET
        else:
            idempotency_key = self.idempotency_key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "op": op,
        })
        if body is not UNSET:
            field_dict["body"] = body
        if idempotency_key is not UNSET:
            field_dict["idempotency_key"] = idempotency_key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.confirm_body import ConfirmBody # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        op = OperationBodyType2Op(d.pop("op"))




        def _parse_body(data: object) -> ConfirmBody | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                body_type_1 = ConfirmBody.from_dict(data)



                return body_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConfirmBody | None | Unset, data)

        body = _parse_body(d.pop("body", UNSET))


        def _parse_idempotency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_key = _parse_idempotency_key(d.pop("idempotency_key", UNSET))


        operation_body_type_2 = cls(
            id=id,
            op=op,
            body=body,
            idempotency_key=idempotency_key,
        )


        operation_body_type_2.additional_properties = d
        return operation_body_type_2

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
