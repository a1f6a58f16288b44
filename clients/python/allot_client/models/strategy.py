from enum import StrEnum

class Strategy(StrEnum):
    ATOMIC = "atomic"
    BATCHED = "batched"
    NAIVE = "naive"
    OPTIMISTIC = "optimistic"
    PESSIMISTIC = "pessimistic"
    REDIS_COUNTER = "redis_counter"
    REDIS_LOCK = "redis_lock"
    SEGMENTED = "segmented"
    SERIALIZED = "serialized"

    def __str__(self) -> str:
        return str(self.value)
