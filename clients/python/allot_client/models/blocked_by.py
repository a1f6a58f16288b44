from enum import StrEnum

class BlockedBy(StrEnum):
    FIFO = "fifo"
    LIMIT = "limit"
    PAUSED = "paused"
    RATE = "rate"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)
