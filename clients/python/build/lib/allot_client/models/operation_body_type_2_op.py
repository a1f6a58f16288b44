from enum import StrEnum

class OperationBodyType2Op(StrEnum):
    CONFIRM = "confirm"

    def __str__(self) -> str:
        return str(self.value)
