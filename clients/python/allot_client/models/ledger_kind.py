from enum import StrEnum

class LedgerKind(StrEnum):
    ADJUSTMENT = "adjustment"
    ALLOCATION = "allocation"
    ALLOCATION_CANCELLED = "allocation_cancelled"
    BACKORDER_FILLED = "backorder_filled"
    CREATED = "created"
    HOLD = "hold"
    HOLD_CONFIRMED = "hold_confirmed"
    HOLD_EXPIRED = "hold_expired"
    HOLD_RELEASED = "hold_released"
    MOVED = "moved"
    RECEIVED = "received"
    RETURNED = "returned"
    TRANSFER = "transfer"
    UNITS_RECEIVED = "units_received"

    def __str__(self) -> str:
        return str(self.value)
