from enum import StrEnum

class ReasonType4Rule(StrEnum):
    MAX_SLOTS = "max_slots"

    def __str__(self) -> str:
        return str(self.value)
