import RichPushCore

extension RichPushLintFinding.Code {
    // MARK: Live Activities (LiveActivityLinter)

    /// `aps.event` is missing.
    public static let liveActivityEventMissing = RichPushLintFinding.Code(rawValue: "live_activity_event_missing")
    /// `aps.event` is not `start`, `update` or `end`.
    public static let liveActivityEventUnknown = RichPushLintFinding.Code(rawValue: "live_activity_event_unknown")
    /// `aps.timestamp` is missing.
    public static let liveActivityTimestampMissing = RichPushLintFinding.Code(rawValue: "live_activity_timestamp_missing")
    /// An `aps` date (`timestamp`, `stale-date`, `dismissal-date`) that is not seconds since 1970.
    public static let liveActivityDate = RichPushLintFinding.Code(rawValue: "live_activity_date")
    /// A start without `aps.attributes-type`.
    public static let liveActivityAttributesTypeMissing = RichPushLintFinding.Code(rawValue: "live_activity_attributes_type_missing")
    /// A start without `aps.attributes`.
    public static let liveActivityAttributesMissing = RichPushLintFinding.Code(rawValue: "live_activity_attributes_missing")
    /// A start without `aps.alert` (Apple: required).
    public static let liveActivityAlertMissing = RichPushLintFinding.Code(rawValue: "live_activity_alert_missing")
    /// No `aps.content-state` where one is needed (start, update; a warning on end).
    public static let liveActivityContentStateMissing = RichPushLintFinding.Code(rawValue: "live_activity_content_state_missing")
    /// `input-push-token` / `input-push-channel` used wrongly (not on a start, both, wrong type).
    public static let liveActivityInputPush = RichPushLintFinding.Code(rawValue: "live_activity_input_push")
    /// A start sent on a broadcast channel (Apple: a broadcast cannot start a Live Activity).
    public static let liveActivityBroadcastStart = RichPushLintFinding.Code(rawValue: "live_activity_broadcast_start")
    /// Static plus dynamic data over Apple's 4 KB.
    public static let liveActivityDataTooLarge = RichPushLintFinding.Code(rawValue: "live_activity_data_too_large")
    /// `dismissal-date` where it does nothing, or later than the system keeps an ended activity.
    public static let liveActivityDismissalDate = RichPushLintFinding.Code(rawValue: "live_activity_dismissal_date")
    /// `stale-date` already past: the activity shows as outdated at once.
    public static let liveActivityStaleDate = RichPushLintFinding.Code(rawValue: "live_activity_stale_date")
    /// `apns-priority` other than 5 or 10 on a device push (Apple: 5 or 10).
    public static let liveActivityPriority = RichPushLintFinding.Code(rawValue: "live_activity_priority")
    /// `apns-priority` 10 past the activity's hourly budget: sent with 5 instead.
    public static let prioritySteppedDown = RichPushLintFinding.Code(rawValue: "priority_stepped_down")
    /// A non-zero `apns-expiration` to a No Message Stored (policy 0) channel (APNs: `BadExpirationDate`).
    public static let expirationOnUnstoredChannel = RichPushLintFinding.Code(rawValue: "expiration_on_unstored_channel")
    /// `aps.attributes-type` is not the app's type (the shape's).
    public static let attributesTypeMismatch = RichPushLintFinding.Code(rawValue: "attributes_type_mismatch")

    // MARK: Shapes (ActivityShape)

    /// A property the app's type declares (not optional) is missing: the decoder fails.
    public static let shapeMissingKey = RichPushLintFinding.Code(rawValue: "shape_missing_key")
    /// A value of the wrong JSON type for the app's declaration: the decoder fails.
    public static let shapeWrongType = RichPushLintFinding.Code(rawValue: "shape_wrong_type")
    /// A key the app's type does not declare: its decoder ignores it (a typo?).
    public static let shapeUnknownKey = RichPushLintFinding.Code(rawValue: "shape_unknown_key")
    /// A value not among a raw-value enum's cases: the decoder fails.
    public static let shapeEnumValue = RichPushLintFinding.Code(rawValue: "shape_enum_value")
    /// A `Date` given as a string (ISO 8601): the default decoder wants a number and fails.
    public static let shapeDateString = RichPushLintFinding.Code(rawValue: "shape_date_string")
    /// A `Date` given as seconds (or milliseconds) since 1970: it decodes 31 years (or far) in the future.
    public static let shapeDateUnixSeconds = RichPushLintFinding.Code(rawValue: "shape_date_unix_seconds")
    /// A `Date` that decodes long in the past (a duration given for a date?).
    public static let shapeDateLongPast = RichPushLintFinding.Code(rawValue: "shape_date_long_past")
}
