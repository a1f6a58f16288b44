from enum import StrEnum

class EventType(StrEnum):
    ALLOCATION_CANCELLED = "allocation.cancelled"
    ALLOCATION_CREATED = "allocation.created"
    BOOKING_CANCELLED = "booking.cancelled"
    BOOKING_CONFIRMED = "booking.confirmed"
    BOOKING_CREATED = "booking.created"
    BOOKING_EXPIRED = "booking.expired"
    BOOKING_RELEASED = "booking.released"
    BOOKING_RESCHEDULED = "booking.rescheduled"
    HOLD_CONFIRMED = "hold.confirmed"
    HOLD_CREATED = "hold.created"
    HOLD_EXPIRED = "hold.expired"
    HOLD_EXTENDED = "hold.extended"
    HOLD_RELEASED = "hold.released"
    JOB_DISCARDED = "job.discarded"
    QUEUE_BULK_APPLIED = "queue.bulk_applied"
    RESOURCE_BACK_IN_STOCK = "resource.back_in_stock"
    RESOURCE_SOLD_OUT = "resource.sold_out"
    RETURN_CREATED = "return.created"
    SKU_BACK_IN_STOCK = "sku.back_in_stock"
    SKU_CREATED = "sku.created"
    SKU_LOW_STOCK = "sku.low_stock"
    SKU_SOLD_OUT = "sku.sold_out"
    STOCK_ADJUSTED = "stock.adjusted"
    TRANSFER_CREATED = "transfer.created"
    UNITS_RECEIVED = "units.received"
    UNIT_CLAIM_CREATED = "unit_claim.created"

    def __str__(self) -> str:
        return str(self.value)
