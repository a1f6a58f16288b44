from enum import StrEnum

class BookingStrategy(StrEnum):
    ADVISORY = "advisory"
    BATCHED = "batched"
    EXCLUSION = "exclusion"
    NAIVE = "naive"
    SERIALIZED = "serialized"

    def __str__(self) -> str:
        return str(self.value)
