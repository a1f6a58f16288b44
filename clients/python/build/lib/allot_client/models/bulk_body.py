from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.bulk_action import BulkAction
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.bulk_filter import BulkFilter





T = TypeVar("T", bound="BulkBody")



@_attrs_define
class BulkBody:
    """ `POST /v1/queues/{queue}/jobs/bulk` body.

        Attributes:
            action (BulkAction): What a bulk call does to the jobs it matches.
            dry_run (bool | None | Unset): Only count what would change. Default false.
            filter_ (BulkFilter | None | Unset):
            max_ (int | None | Unset): Most jobs this call acts on, 1..=`max_bulk_jobs`. Default `max_bulk_jobs`.
     """

    action: BulkAction
    dry_run: bool | None | Unset = UNSET
    filter_: BulkFilter | None | Unset = UNSET
    max_: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.bulk_filter import BulkFilter # noqa: PLC0415
        action = self.action.value

        dry_run: bool | None | Unset
        if isinstance(self.dry_run, Unset):
            dry_run = UNSET
        else:
            dry_run = self.dry_run

        filter_: dict[str, Any] | None | Unset
        if isinstance(self.filter_, Unset):
            filter_ = UNSET
        elif isinstance(self.filter_, BulkFilter):
            filter_ = self.filter_.to_dict()
        else:
            filter_ = self.filter_

        max_: int | None | Unset
        if isinstance(self.max_, Unset):
            max_ = UNSET
        else:
            max_ = self.max_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "action": action,
        })
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if max_ is not UNSET:
            field_dict["max"] = max_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.bulk_filter import BulkFilter # noqa: PLC0415
        d = dict(src_dict)
        action = BulkAction(d.pop("action"))




        def _parse_dry_run(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        dry_run = _parse_dry_run(d.pop("dry_run", UNSET))


        def _parse_filter_(data: object) -> BulkFilter | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                filter_type_1 = BulkFilter.from_dict(data)



                return filter_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BulkFilter | None | Unset, data)

        filter_ = _parse_filter_(d.pop("filter", UNSET))


        def _parse_max_(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_ = _parse_max_(d.pop("max", UNSET))


        bulk_body = cls(
            action=action,
            dry_run=dry_run,
            filter_=filter_,
            max_=max_,
        )

        return bulk_body

