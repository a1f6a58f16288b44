from enum import StrEnum

class ReasonType3Rule(StrEnum):
    MIN_SLOTS = "min_slots"

    def __str__(self) -> str:
        return str(self.value)
