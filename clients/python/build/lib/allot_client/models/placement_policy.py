from enum import StrEnum

class PlacementPolicy(StrEnum):
    MOST_AVAILABLE = "most_available"
    PRIORITY = "priority"

    def __str__(self) -> str:
        return str(self.value)
