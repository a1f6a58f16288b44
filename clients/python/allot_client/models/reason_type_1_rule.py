from enum import StrEnum

class ReasonType1Rule(StrEnum):
    OVERLAP = "overlap"

    def __str__(self) -> str:
        return str(self.value)
