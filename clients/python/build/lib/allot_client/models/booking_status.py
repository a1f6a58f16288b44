from enum import StrEnum

class BookingStatus(StrEnum):
    CANCELLED = "cancelled"
    CONFIRMED = "confirmed"
    EXPIRED = "expired"
    HELD = "held"
    RELEASED = "released"

    def __str__(self) -> str:
        return str(self.value)
