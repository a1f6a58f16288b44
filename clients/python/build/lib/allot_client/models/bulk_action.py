from enum import StrEnum

class BulkAction(StrEnum):
    CANCEL = "cancel"
    DELETE = "delete"
    RETRY = "retry"

    def __str__(self) -> str:
        return str(self.value)
