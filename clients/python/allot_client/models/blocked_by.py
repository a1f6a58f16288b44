from enum import StrEnum

class BlockedBy(StrEnum):
    DEPENDENCIES = "dependencies"
    FIFO = "fifo"
    LIMIT = "limit"
    PAUSED = "paused"
    RATE = "rate"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)
