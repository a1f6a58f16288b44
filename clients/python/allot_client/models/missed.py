from enum import StrEnum

class Missed(StrEnum):
    RUN_ONCE = "run_once"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)
