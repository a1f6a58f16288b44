from enum import StrEnum

class StockReason(StrEnum):
    CANCELLED = "cancelled"
    CORRECTION = "correction"
    CYCLE_COUNT = "cycle_count"
    DAMAGED = "damaged"
    OTHER = "other"
    PROMOTION = "promotion"
    QUALITY_CONTROL = "quality_control"
    RECEIVED = "received"
    RESERVATION_EXPIRED = "reservation_expired"
    RESERVATION_RELEASED = "reservation_released"
    RESERVED = "reserved"
    RESTOCK = "restock"
    RETURNED = "returned"
    SAFETY_STOCK = "safety_stock"
    SHRINKAGE = "shrinkage"
    SOLD = "sold"
    TRANSFER = "transfer"

    def __str__(self) -> str:
        return str(self.value)
