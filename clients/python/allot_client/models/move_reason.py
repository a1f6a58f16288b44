from enum import StrEnum

class MoveReason(StrEnum):
    CORRECTION = "correction"
    CYCLE_COUNT = "cycle_count"
    DAMAGED = "damaged"
    OTHER = "other"
    PROMOTION = "promotion"
    QUALITY_CONTROL = "quality_control"
    RESTOCK = "restock"
    SAFETY_STOCK = "safety_stock"

    def __str__(self) -> str:
        return str(self.value)
