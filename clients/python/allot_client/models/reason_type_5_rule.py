from enum import StrEnum

class ReasonType5Rule(StrEnum):
    CLOSED_TO_ARRIVAL = "closed_to_arrival"

    def __str__(self) -> str:
        return str(self.value)
