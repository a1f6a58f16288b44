from enum import StrEnum

class AllocationStatus(StrEnum):
    ALLOCATED = "allocated"
    CANCELLED = "cancelled"
    HELD = "held"

    def __str__(self) -> str:
        return str(self.value)
