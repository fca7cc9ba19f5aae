import RichPushCore

extension LintFinding.Code {
    // MARK: Live Activities (LiveActivityLinter)

    /// `aps.event` is missing.
    public static let liveActivityEventMissing = LintFinding.Code(rawValue: "live_activity_event_missing")
    /// `aps.event` is not `start`, `update` or `end`.
    public static let liveActivityEventUnknown = LintFinding.Code(rawValue: "live_activity_event_unknown")
    /// `aps.timestamp` is missing.
    public static let liveActivityTimestampMissing = LintFinding.Code(rawValue: "live_activity_timestamp_missing")
    /// An `aps` date (`timestamp`, `stale-date`, `dismissal-date`) that is not seconds since 1970.
    public static let liveActivityDate = LintFinding.Code(rawValue: "live_activity_date")
    /// A start without `aps.attributes-type`.
    public static let liveActivityAttributesTypeMissing = LintFinding.Code(rawValue: "live_activity_attributes_type_missing")
    /// A start without `aps.attributes`.
    public static let liveActivityAttributesMissing = LintFinding.Code(rawValue: "live_activity_attributes_missing")
    /// A start without `aps.alert` (Apple: required).
    public static let liveActivityAlertMissing = LintFinding.Code(rawValue: "live_activity_alert_missing")
    /// No `aps.content-state` where one is needed (start, update; a warning on end).
    public static let liveActivityContentStateMissing = LintFinding.Code(rawValue: "live_activity_content_state_missing")
    /// `input-push-token` / `input-push-channel` used wrongly (not on a start, both, wrong type).
    public static let liveActivityInputPush = LintFinding.Code(rawValue: "live_activity_input_push")
    /// A start sent on a broadcast channel (Apple: a broadcast cannot start a Live Activity).
    public static let liveActivityBroadcastStart = LintFinding.Code(rawValue: "live_activity_broadcast_start")
    /// Static plus dynamic data over Apple's 4 KB.
    public static let liveActivityDataTooLarge = LintFinding.Code(rawValue: "live_activity_data_too_large")
    /// `dismissal-date` where it does nothing, or later than the system keeps an ended activity.
    public static let liveActivityDismissalDate = LintFinding.Code(rawValue: "live_activity_dismissal_date")
    /// `stale-date` already past: the activity shows as outdated at once.
    public static let liveActivityStaleDate = LintFinding.Code(rawValue: "live_activity_stale_date")
    /// `apns-priority` other than 5 or 10 on a device push (Apple: 5 or 10).
    public static let liveActivityPriority = LintFinding.Code(rawValue: "live_activity_priority")
    /// `apns-priority` 10 past the activity's hourly budget: sent with 5 instead.
    public static let prioritySteppedDown = LintFinding.Code(rawValue: "priority_stepped_down")
    /// A non-zero `apns-expiration` to a No Message Stored (policy 0) channel (APNs: `BadExpirationDate`).
    public static let expirationOnUnstoredChannel = LintFinding.Code(rawValue: "expiration_on_unstored_channel")
    /// `aps.attributes-type` is not the app's type (the shape's).
    public static let attributesTypeMismatch = LintFinding.Code(rawValue: "attributes_type_mismatch")

    // MARK: Shapes (ActivityShape)

    /// A property the app's type declares (not optional) is missing: the decoder fails.
    public static let shapeMissingKey = LintFinding.Code(rawValue: "shape_missing_key")
    /// A value of the wrong JSON type for the app's declaration: the decoder fails.
    public static let shapeWrongType = LintFinding.Code(rawValue: "shape_wrong_type")
    /// A key the app's type does not declare: its decoder ignores it (a typo?).
    public static let shapeUnknownKey = LintFinding.Code(rawValue: "shape_unknown_key")
    /// A value not among a raw-value enum's cases: the decoder fails.
    public static let shapeEnumValue = LintFinding.Code(rawValue: "shape_enum_value")
    /// A `Date` given as a string (ISO 8601): the default decoder wants a number and fails.
    public static let shapeDateString = LintFinding.Code(rawValue: "shape_date_string")
    /// A `Date` given as seconds (or milliseconds) since 1970: it decodes 31 years (or far) in the future.
    public static let shapeDateUnixSeconds = LintFinding.Code(rawValue: "shape_date_unix_seconds")
    /// A `Date` that decodes long in the past (a duration given for a date?).
    public static let shapeDateLongPast = LintFinding.Code(rawValue: "shape_date_long_past")
}
