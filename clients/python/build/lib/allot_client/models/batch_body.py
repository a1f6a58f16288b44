from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.operation_body_type_0 import OperationBodyType0
  from ..models.operation_body_type_1 import OperationBodyType1
  from ..models.operation_body_type_2 import OperationBodyType2
  from ..models.operation_body_type_3 import OperationBodyType3
  from ..models.operation_body_type_4 import OperationBodyType4





T = TypeVar("T", bound="BatchBody")



@_attrs_define
class BatchBody:
    """ `POST /v1/batch` body.

        Attributes:
            operations (list[OperationBodyType0 | OperationBodyType1 | OperationBodyType2 | OperationBodyType3 |
                OperationBodyType4]): 1..=`max_batch_operations` operations; results come back in the same order.
     """

    operations: list[OperationBodyType0 | OperationBodyType1 | OperationBodyType2 | OperationBodyType3 | OperationBodyType4]





    def to_dict(self) -> dict[str, Any]:
        from ..models.operation_body_type_0 import OperationBodyType0 # noqa: PLC0415
        from ..models.operation_body_type_1 import OperationBodyType1 # noqa: PLC0415
        from ..models.operation_body_type_2 import OperationBodyType2 # noqa: PLC0415
        from ..models.operation_body_type_3 import OperationBodyType3 # noqa: PLC0415
        from ..models.operation_body_type_4 import OperationBodyType4 # noqa: PLC0415
        operations = []
        for operations_item_data in self.operations:
            operations_item: dict[str, Any]
            if isinstance(operations_item_data, OperationBodyType0):
                operations_item = operations_item_data.to_dict()
            elif isinstance(operations_item_data, OperationBodyType1):
                operations_item = operations_item_data.to_dict()
            elif isinstance(operations_item_data, OperationBodyType2):
                operations_item = operations_item_data.to_dict()
            elif isinstance(operations_item_data, OperationBodyType3):
                operations_item = operations_item_data.to_dict()
            else:
                operations_item = operations_item_data.to_dict()

            operations.append(operations_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "operations": operations,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.operation_body_type_0 import OperationBodyType0 # noqa: PLC0415
        from ..models.operation_body_type_1 import OperationBodyType1 # noqa: PLC0415
        from ..models.operation_body_type_2 import OperationBodyType2 # noqa: PLC0415
        from ..models.operation_body_type_3 import OperationBodyType3 # noqa: PLC0415
        from ..models.operation_body_type_4 import OperationBodyType4 # noqa: PLC0415
        d = dict(src_dict)
        operations = []
        _operations = d.pop("operations")
        for operations_item_data in (_operations):
            def _parse_operations_item(data: object) -> OperationBodyType0 | OperationBodyType1 | OperationBodyType2 | OperationBodyType3 | OperationBodyType4:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_operation_body_type_0 = OperationBodyType0.from_dict(data)



                    return componentsschemas_operation_body_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_operation_body_type_1 = OperationBodyType1.from_dict(data)



                    return componentsschemas_operation_body_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_operation_body_type_2 = OperationBodyType2.from_dict(data)



                    return componentsschemas_operation_body_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_operation_body_type_3 = OperationBodyType3.from_dict(data)



                    return componentsschemas_operation_body_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_operation_body_type_4 = OperationBodyType4.from_dict(data)



                return componentsschemas_operation_body_type_4

            operations_item = _parse_operations_item(operations_item_data)

            operations.append(operations_item)


        batch_body = cls(
            operations=operations,
        )

        return batch_body

