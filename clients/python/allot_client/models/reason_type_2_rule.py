from enum import StrEnum

class ReasonType2Rule(StrEnum):
    CLOSED = "closed"

    def __str__(self) -> str:
        return str(self.value)
