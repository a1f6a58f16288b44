from enum import StrEnum

class ReasonType8Rule(StrEnum):
    LEAD_TIME = "lead_time"

    def __str__(self) -> str:
        return str(self.value)
