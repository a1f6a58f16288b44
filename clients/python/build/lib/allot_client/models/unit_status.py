from enum import StrEnum

class UnitStatus(StrEnum):
    ALLOCATED = "allocated"
    AVAILABLE = "available"
    HELD = "held"

    def __str__(self) -> str:
        return str(self.value)
