from enum import StrEnum

class ReturnState(StrEnum):
    DAMAGED = "damaged"
    SELLABLE = "sellable"

    def __str__(self) -> str:
        return str(self.value)
