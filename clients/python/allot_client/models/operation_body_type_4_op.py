from enum import StrEnum

class OperationBodyType4Op(StrEnum):
    CANCEL = "cancel"

    def __str__(self) -> str:
        return str(self.value)
