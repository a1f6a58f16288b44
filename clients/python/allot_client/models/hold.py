from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.hold_kind import HoldKind
from ..models.hold_status import HoldStatus
from ..models.strategy import Strategy
from ..models.unit_strategy import UnitStrategy
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.allocation_line import AllocationLine
  from ..models.booking import Booking
  from ..models.unit import Unit





T = TypeVar("T", bound="Hold")



@_attrs_define
class Hold:
    """ A hold as the API returns it.

        Attributes:
            created_at (datetime.datetime): When it was made (UTC).
            expires_at (datetime.datetime): When the hold lapses (UTC).
            id (str): Server-generated id (UUID v4 text); a confirmed hold's allocation has the same id.
            kind (HoldKind): What a hold sets aside: fungible stock lines, or individual units of one SKU.
            lines (list[AllocationLine]): Lines sorted by SKU (for a unit hold: one line, the SKU and how many units); a
                hold
                confirmed in part lists what it confirmed.
            status (HoldStatus): The life cycle of a hold. `held` is the only state with quantity set aside; the others
                are final.
            strategy (Strategy | UnitStrategy): The strategy that took a hold's or an allocation's quantity: a stock
                [`Strategy`] for
                stock lines, a [`UnitStrategy`] for units. On the wire it is the bare name; `serialized`
                (SQLite's name in both families) reads back as the stock one, so a reader that needs the
                family takes it from the hold's `kind`.
            bookings (list[Booking] | None | Unset): The bookings its booking lines took, in the order of those lines (a
                hold with booking
                lines only): each `held` until the hold's `expires_at`, then as the hold ends
                (`confirmed`, `released`, `expired`), and reached through the hold alone.
            units (list[Unit] | None | Unset): The units held (unit holds only).
     """

    created_at: datetime.datetime
    expires_at: datetime.datetime
    id: str
    kind: HoldKind
    lines: list[AllocationLine]
    status: HoldStatus
    strategy: Strategy | UnitStrategy
    bookings: list[Booking] | None | Unset = UNSET
    units: list[Unit] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.allocation_line import AllocationLine # noqa: PLC0415
        from ..models.booking import Booking # noqa: PLC0415
        from ..models.unit import Unit # noqa: PLC0415
        created_at = self.created_at.isoformat()

        expires_at = self.expires_at.isoformat()

        id = self.id

        kind = self.kind.value

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)



        status = self.status.value

        strategy: str
        if isinstance(self.strategy, Strategy):
            strategy = self.strategy.value
        else:
            strategy = self.strategy.value


        bookings: list[dict[str, Any]] | None | Unset
        if isinstance(self.bookings, Unset):
            bookings = UNSET
        elif isinstance(self.bookings, list):
            bookings = []
            for bookings_type_0_item_data in self.bookings:
                bookings_type_0_item = bookings_type_0_item_data.to_dict()
                bookings.append(bookings_type_0_item)


        else:
            bookings = self.bookings

        units: list[dict[str, Any]] | None | Unset
        if isinstance(self.units, Unset):
            units = UNSET
        elif isinstance(self.units, list):
            units = []
            for units_type_0_item_data in self.units:
                units_type_0_item = units_type_0_item_data.to_dict()
                units.append(units_type_0_item)


        else:
            units = self.units


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "expires_at": expires_at,
            "id": id,
            "kind": kind,
            "lines": lines,
            "status": status,
            "strategy": strategy,
        })
        if bookings is not UNSET:
            field_dict["bookings"] = bookings
        if units is not UNSET:
            field_dict["units"] = units

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allocation_line import AllocationLine # noqa: PLC0415
        from ..models.booking import Booking # noqa: PLC0415
        from ..models.unit import Unit # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))




        id = d.pop("id")

        kind = HoldKind(d.pop("kind"))




        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = AllocationLine.from_dict(lines_item_data)



            lines.append(lines_item)


        status = HoldStatus(d.pop("status"))




        def _parse_strategy(data: object) -> Strategy | UnitStrategy:
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_taken_with_type_0 = Strategy(data)



                return componentsschemas_taken_with_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, str):
                raise TypeError()
            componentsschemas_taken_with_type_1 = UnitStrategy(data)



            return componentsschemas_taken_with_type_1

        strategy = _parse_strategy(d.pop("strategy"))


        def _parse_bookings(data: object) -> list[Booking] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                bookings_type_0 = []
                _bookings_type_0 = data
                for bookings_type_0_item_data in (_bookings_type_0):
                    bookings_type_0_item = Booking.from_dict(bookings_type_0_item_data)



                    bookings_type_0.append(bookings_type_0_item)

                return bookings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Booking] | None | Unset, data)

        bookings = _parse_bookings(d.pop("bookings", UNSET))


        def _parse_units(data: object) -> list[Unit] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                units_type_0 = []
                _units_type_0 = data
                for units_type_0_item_data in (_units_type_0):
                    units_type_0_item = Unit.from_dict(units_type_0_item_data)



                    units_type_0.append(units_type_0_item)

                return units_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Unit] | None | Unset, data)

        units = _parse_units(d.pop("units", UNSET))


        hold = cls(
            created_at=created_at,
            expires_at=expires_at,
            id=id,
            kind=kind,
            lines=lines,
            status=status,
            strategy=strategy,
            bookings=bookings,
            units=units,
        )


        hold.additional_properties = d
        return hold

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
