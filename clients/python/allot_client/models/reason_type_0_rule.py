from enum import StrEnum

class ReasonType0Rule(StrEnum):
    CAPACITY = "capacity"

    def __str__(self) -> str:
        return str(self.value)
