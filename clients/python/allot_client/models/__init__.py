""" Contains all the data models used in inputs/outputs """

from .adjustment_body import AdjustmentBody
from .allocation import Allocation
from .allocation_body import AllocationBody
from .allocation_line import AllocationLine
from .allocation_outcomes import AllocationOutcomes
from .allocation_page import AllocationPage
from .allocation_status import AllocationStatus
from .api_key import ApiKey
from .audit_object import AuditObject
from .audit_object_kind import AuditObjectKind
from .audit_report import AuditReport
from .audit_violation import AuditViolation
from .auto_view import AutoView
from .availability import Availability
from .batch_body import BatchBody
from .batch_results import BatchResults
from .blocked_by import BlockedBy
from .booking import Booking
from .booking_body import BookingBody
from .booking_line import BookingLine
from .booking_line_body import BookingLineBody
from .booking_list import BookingList
from .booking_overlap import BookingOverlap
from .booking_status import BookingStatus
from .booking_strategy import BookingStrategy
from .bulk_action import BulkAction
from .bulk_body import BulkBody
from .bulk_filter import BulkFilter
from .bulk_result import BulkResult
from .claim_body import ClaimBody
from .claimed import Claimed
from .closed import Closed
from .closed_body import ClosedBody
from .complete_body import CompleteBody
from .completion import Completion
from .completions import Completions
from .completions_body import CompletionsBody
from .component import Component
from .component_availability import ComponentAvailability
from .confirm_body import ConfirmBody
from .confirm_booking_line import ConfirmBookingLine
from .confirm_line import ConfirmLine
from .create_sku_body import CreateSkuBody
from .created_key import CreatedKey
from .created_webhook import CreatedWebhook
from .current_key import CurrentKey
from .enqueue_body import EnqueueBody
from .enqueued import Enqueued
from .error_body import ErrorBody
from .error_detail import ErrorDetail
from .event import Event
from .event_data import EventData
from .event_page import EventPage
from .event_type import EventType
from .explain import Explain
from .extend_body import ExtendBody
from .fair_by import FairBy
from .free_slot import FreeSlot
from .health import Health
from .hold import Hold
from .hold_body import HoldBody
from .hold_kind import HoldKind
from .hold_page import HoldPage
from .hold_status import HoldStatus
from .incoming import Incoming
from .incoming_body import IncomingBody
from .instance import Instance
from .instance_view import InstanceView
from .job_batch_body import JobBatchBody
from .job_batch_made import JobBatchMade
from .job_detail import JobDetail
from .job_list import JobList
from .job_state import JobState
from .job_status import JobStatus
from .job_totals import JobTotals
from .job_totals_counts import JobTotalsCounts
from .job_view import JobView
from .job_violation import JobViolation
from .key_list import KeyList
from .kit import Kit
from .kit_availability import KitAvailability
from .kit_body import KitBody
from .kit_line_body import KitLineBody
from .lease_body import LeaseBody
from .leased_job import LeasedJob
from .ledger_entry import LedgerEntry
from .ledger_kind import LedgerKind
from .ledger_page import LedgerPage
from .level import Level
from .line_body import LineBody
from .live import Live
from .location import Location
from .location_body import LocationBody
from .location_list import LocationList
from .missed import Missed
from .move import Move
from .move_body import MoveBody
from .new_job import NewJob
from .new_key_body import NewKeyBody
from .new_unit import NewUnit
from .on_failed_dependency import OnFailedDependency
from .operation_body_type_0 import OperationBodyType0
from .operation_body_type_0_op import OperationBodyType0Op
from .operation_body_type_1 import OperationBodyType1
from .operation_body_type_1_op import OperationBodyType1Op
from .operation_body_type_2 import OperationBodyType2
from .operation_body_type_2_op import OperationBodyType2Op
from .operation_body_type_3 import OperationBodyType3
from .operation_body_type_3_op import OperationBodyType3Op
from .operation_body_type_4 import OperationBodyType4
from .operation_body_type_4_op import OperationBodyType4Op
from .operation_result import OperationResult
from .operation_result_body import OperationResultBody
from .placement_policy import PlacementPolicy
from .pool import Pool
from .pool_body import PoolBody
from .quantity_state import QuantityState
from .queue_counts import QueueCounts
from .queue_counts_counts import QueueCountsCounts
from .queue_list import QueueList
from .queue_settings import QueueSettings
from .queue_settings_body import QueueSettingsBody
from .queue_settings_body_weights_type_0 import QueueSettingsBodyWeightsType0
from .queue_settings_weights import QueueSettingsWeights
from .rate import Rate
from .ready import Ready
from .reason_type_0 import ReasonType0
from .reason_type_0_rule import ReasonType0Rule
from .reason_type_1 import ReasonType1
from .reason_type_1_rule import ReasonType1Rule
from .reason_type_2 import ReasonType2
from .reason_type_2_rule import ReasonType2Rule
from .reason_type_3 import ReasonType3
from .reason_type_3_rule import ReasonType3Rule
from .reason_type_4 import ReasonType4
from .reason_type_4_rule import ReasonType4Rule
from .reason_type_5 import ReasonType5
from .reason_type_5_rule import ReasonType5Rule
from .reason_type_6 import ReasonType6
from .reason_type_6_rule import ReasonType6Rule
from .reason_type_7 import ReasonType7
from .reason_type_7_rule import ReasonType7Rule
from .reason_type_8 import ReasonType8
from .reason_type_8_rule import ReasonType8Rule
from .reason_type_9 import ReasonType9
from .reason_type_9_rule import ReasonType9Rule
from .receipt import Receipt
from .receipt_body import ReceiptBody
from .redeliver_body import RedeliverBody
from .redelivered import Redelivered
from .request_bucket import RequestBucket
from .reschedule_body import RescheduleBody
from .reschedule_booking_body import RescheduleBookingBody
from .resource import Resource
from .resource_body import ResourceBody
from .return_ import Return
from .return_body import ReturnBody
from .return_line import ReturnLine
from .return_line_body import ReturnLineBody
from .return_state import ReturnState
from .rules import Rules
from .rules_body import RulesBody
from .schedule import Schedule
from .schedule_body import ScheduleBody
from .schedule_list import ScheduleList
from .scope import Scope
from .service_health import ServiceHealth
from .set_level_body import SetLevelBody
from .sku import Sku
from .sku_page import SkuPage
from .sku_settings_body import SkuSettingsBody
from .slot_availability import SlotAvailability
from .slot_capacity_body import SlotCapacityBody
from .slot_overbooked import SlotOverbooked
from .slots_set import SlotsSet
from .snooze_body import SnoozeBody
from .source import Source
from .stats import Stats
from .stock_reason import StockReason
from .strategy import Strategy
from .tier import Tier
from .transfer import Transfer
from .transfer_body import TransferBody
from .unit import Unit
from .unit_allocation import UnitAllocation
from .unit_allocation_body import UnitAllocationBody
from .unit_line_body import UnitLineBody
from .unit_page import UnitPage
from .unit_status import UnitStatus
from .unit_strategy import UnitStrategy
from .unit_view import UnitView
from .units_body import UnitsBody
from .units_created import UnitsCreated
from .units_line import UnitsLine
from .webhook import Webhook
from .webhook_body import WebhookBody
from .webhook_health import WebhookHealth
from .webhook_list import WebhookList
from .webhook_status import WebhookStatus

__all__ = (
    "AdjustmentBody",
    "Allocation",
    "AllocationBody",
    "AllocationLine",
    "AllocationOutcomes",
    "AllocationPage",
    "AllocationStatus",
    "ApiKey",
    "AuditObject",
    "AuditObjectKind",
    "AuditReport",
    "AuditViolation",
    "AutoView",
    "Availability",
    "BatchBody",
    "BatchResults",
    "BlockedBy",
    "Booking",
    "BookingBody",
    "BookingLine",
    "BookingLineBody",
    "BookingList",
    "BookingOverlap",
    "BookingStatus",
    "BookingStrategy",
    "BulkAction",
    "BulkBody",
    "BulkFilter",
    "BulkResult",
    "ClaimBody",
    "Claimed",
    "Closed",
    "ClosedBody",
    "CompleteBody",
    "Completion",
    "Completions",
    "CompletionsBody",
    "Component",
    "ComponentAvailability",
    "ConfirmBody",
    "ConfirmBookingLine",
    "ConfirmLine",
    "CreatedKey",
    "CreatedWebhook",
    "CreateSkuBody",
    "CurrentKey",
    "EnqueueBody",
    "Enqueued",
    "ErrorBody",
    "ErrorDetail",
    "Event",
    "EventData",
    "EventPage",
    "EventType",
    "Explain",
    "ExtendBody",
    "FairBy",
    "FreeSlot",
    "Health",
    "Hold",
    "HoldBody",
    "HoldKind",
    "HoldPage",
    "HoldStatus",
    "Incoming",
    "IncomingBody",
    "Instance",
    "InstanceView",
    "JobBatchBody",
    "JobBatchMade",
    "JobDetail",
    "JobList",
    "JobState",
    "JobStatus",
    "JobTotals",
    "JobTotalsCounts",
    "JobView",
    "JobViolation",
    "KeyList",
    "Kit",
    "KitAvailability",
    "KitBody",
    "KitLineBody",
    "LeaseBody",
    "LeasedJob",
    "LedgerEntry",
    "LedgerKind",
    "LedgerPage",
    "Level",
    "LineBody",
    "Live",
    "Location",
    "LocationBody",
    "LocationList",
    "Missed",
    "Move",
    "MoveBody",
    "NewJob",
    "NewKeyBody",
    "NewUnit",
    "OnFailedDependency",
    "OperationBodyType0",
    "OperationBodyType0Op",
    "OperationBodyType1",
    "OperationBodyType1Op",
    "OperationBodyType2",
    "OperationBodyType2Op",
    "OperationBodyType3",
    "OperationBodyType3Op",
    "OperationBodyType4",
    "OperationBodyType4Op",
    "OperationResult",
    "OperationResultBody",
    "PlacementPolicy",
    "Pool",
    "PoolBody",
    "QuantityState",
    "QueueCounts",
    "QueueCountsCounts",
    "QueueList",
    "QueueSettings",
    "QueueSettingsBody",
    "QueueSettingsBodyWeightsType0",
    "QueueSettingsWeights",
    "Rate",
    "Ready",
    "ReasonType0",
    "ReasonType0Rule",
    "ReasonType1",
    "ReasonType1Rule",
    "ReasonType2",
    "ReasonType2Rule",
    "ReasonType3",
    "ReasonType3Rule",
    "ReasonType4",
    "ReasonType4Rule",
    "ReasonType5",
    "ReasonType5Rule",
    "ReasonType6",
    "ReasonType6Rule",
    "ReasonType7",
    "ReasonType7Rule",
    "ReasonType8",
    "ReasonType8Rule",
    "ReasonType9",
    "ReasonType9Rule",
    "Receipt",
    "ReceiptBody",
    "RedeliverBody",
    "Redelivered",
    "RequestBucket",
    "RescheduleBody",
    "RescheduleBookingBody",
    "Resource",
    "ResourceBody",
    "Return",
    "ReturnBody",
    "ReturnLine",
    "ReturnLineBody",
    "ReturnState",
    "Rules",
    "RulesBody",
    "Schedule",
    "ScheduleBody",
    "ScheduleList",
    "Scope",
    "ServiceHealth",
    "SetLevelBody",
    "Sku",
    "SkuPage",
    "SkuSettingsBody",
    "SlotAvailability",
    "SlotCapacityBody",
    "SlotOverbooked",
    "SlotsSet",
    "SnoozeBody",
    "Source",
    "Stats",
    "StockReason",
    "Strategy",
    "Tier",
    "Transfer",
    "TransferBody",
    "Unit",
    "UnitAllocation",
    "UnitAllocationBody",
    "UnitLineBody",
    "UnitPage",
    "UnitsBody",
    "UnitsCreated",
    "UnitsLine",
    "UnitStatus",
    "UnitStrategy",
    "UnitView",
    "Webhook",
    "WebhookBody",
    "WebhookHealth",
    "WebhookList",
    "WebhookStatus",
)
