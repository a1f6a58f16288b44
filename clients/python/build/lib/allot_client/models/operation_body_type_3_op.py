from enum import StrEnum

class OperationBodyType3Op(StrEnum):
    RELEASE = "release"

    def __str__(self) -> str:
        return str(self.value)
