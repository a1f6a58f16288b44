from enum import StrEnum

class OnFailedDependency(StrEnum):
    DISCARD = "discard"
    RUN = "run"

    def __str__(self) -> str:
        return str(self.value)
