from enum import StrEnum

class QuantityState(StrEnum):
    AVAILABLE = "available"
    DAMAGED = "damaged"
    QUALITY_CONTROL = "quality_control"
    SAFETY_STOCK = "safety_stock"

    def __str__(self) -> str:
        return str(self.value)
