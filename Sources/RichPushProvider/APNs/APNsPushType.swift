/// The `apns-push-type` header. A struct over a string so a type Apple adds can still be sent.
///
/// - Important: Apple: required on watchOS 6+ and recommended everywhere; `alert` for a visible
///   notification (the only type that runs a notification service extension), `background` for
///   `content-available` pushes (priority must then be 5).
public struct APNsPushType: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A visible notification (alert, sound, badge); the only type that runs a notification service extension.
    public static let alert = APNsPushType(rawValue: "alert")
    /// `content-available` without an alert; priority must be 5.
    public static let background = APNsPushType(rawValue: "background")
    /// A location query for a Location Push Service extension (topic `<bundle id>.location-query`).
    public static let location = APNsPushType(rawValue: "location")
    /// VoIP (topic `<bundle id>.voip`; payload up to 5120 bytes).
    public static let voip = APNsPushType(rawValue: "voip")
    /// A watchOS complication update (topic `<bundle id>.complication`).
    public static let complication = APNsPushType(rawValue: "complication")
    /// A File Provider change (topic `<bundle id>.pushkit.fileprovider`).
    public static let fileprovider = APNsPushType(rawValue: "fileprovider")
    /// Tells a managed device to contact its MDM server (topic from the MDM certificate).
    public static let mdm = APNsPushType(rawValue: "mdm")
    /// A Live Activity update (topic `<bundle id>.push-type.liveactivity`).
    public static let liveactivity = APNsPushType(rawValue: "liveactivity")
    /// A Push to Talk update (topic `<bundle id>.voip-ptt`).
    public static let pushtotalk = APNsPushType(rawValue: "pushtotalk")
    /// Reloads widgets (topic `<bundle id>.push-type.widgets`).
    public static let widgets = APNsPushType(rawValue: "widgets")
    /// Reloads controls (topic `<bundle id>.push-type.controls`).
    public static let controls = APNsPushType(rawValue: "controls")

    /// The push types Apple documents for `apns-push-type` (Apple: "Sending notification
    /// requests to APNs"), in the order Apple lists them.
    public static let documented: [APNsPushType] = [
        .alert, .background, .location, .voip, .complication, .fileprovider, .mdm, .liveactivity, .pushtotalk, .widgets, .controls,
    ]
}
