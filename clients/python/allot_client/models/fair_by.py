from enum import StrEnum

class FairBy(StrEnum):
    PARTITION_KEY = "partition_key"

    def __str__(self) -> str:
        return str(self.value)
