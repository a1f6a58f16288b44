from enum import StrEnum

class Scope(StrEnum):
    ADMIN = "admin"
    BOOKINGSREAD = "bookings:read"
    BOOKINGSWRITE = "bookings:write"
    EVENTSREAD = "events:read"
    JOBSENQUEUE = "jobs:enqueue"
    JOBSMANAGE = "jobs:manage"
    JOBSREAD = "jobs:read"
    JOBSWORK = "jobs:work"
    STOCKREAD = "stock:read"
    STOCKWRITE = "stock:write"
    UNITSREAD = "units:read"
    UNITSWRITE = "units:write"
    WEBHOOKSMANAGE = "webhooks:manage"

    def __str__(self) -> str:
        return str(self.value)
