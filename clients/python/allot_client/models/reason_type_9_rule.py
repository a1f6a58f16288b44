from enum import StrEnum

class ReasonType9Rule(StrEnum):
    HORIZON = "horizon"

    def __str__(self) -> str:
        return str(self.value)
