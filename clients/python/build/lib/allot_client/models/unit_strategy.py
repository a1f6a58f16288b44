from enum import StrEnum

class UnitStrategy(StrEnum):
    BATCHED = "batched"
    NOWAIT_SCAN = "nowait_scan"
    SERIALIZED = "serialized"
    SKIP_LOCKED = "skip_locked"

    def __str__(self) -> str:
        return str(self.value)
