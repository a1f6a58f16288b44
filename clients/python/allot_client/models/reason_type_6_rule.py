from enum import StrEnum

class ReasonType6Rule(StrEnum):
    CLOSED_TO_DEPARTURE = "closed_to_departure"

    def __str__(self) -> str:
        return str(self.value)
