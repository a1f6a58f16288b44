from enum import StrEnum

class AuditObjectKind(StrEnum):
    ALLOCATION = "allocation"
    HOLD = "hold"
    TRANSFER = "transfer"

    def __str__(self) -> str:
        return str(self.value)
