from enum import StrEnum

class HoldKind(StrEnum):
    MIXED = "mixed"
    STOCK = "stock"
    UNITS = "units"

    def __str__(self) -> str:
        return str(self.value)
