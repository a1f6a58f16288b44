from enum import StrEnum

class Tier(StrEnum):
    COLD = "cold"
    HOT = "hot"

    def __str__(self) -> str:
        return str(self.value)
