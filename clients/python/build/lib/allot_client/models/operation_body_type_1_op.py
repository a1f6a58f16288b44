from enum import StrEnum

class OperationBodyType1Op(StrEnum):
    HOLD = "hold"

    def __str__(self) -> str:
        return str(self.value)
