from enum import StrEnum

class ReasonType7Rule(StrEnum):
    BUFFER = "buffer"

    def __str__(self) -> str:
        return str(self.value)
