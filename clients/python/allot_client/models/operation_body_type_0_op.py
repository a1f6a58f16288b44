from enum import StrEnum

class OperationBodyType0Op(StrEnum):
    ALLOCATE = "allocate"

    def __str__(self) -> str:
        return str(self.value)
