/// The `apns-push-type` header. A struct over a string so a type Apple adds can still be sent.
///
/// - Important: Apple: required on watchOS 6+ and recommended everywhere; `alert` for a visible
///   notification (the only type that runs a notification service extension), `background` for
///   `content-available` pushes (priority must then be 5).
public struct APNsPushType: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let alert = APNsPushType(rawValue: "alert")
    public static let background = APNsPushType(rawValue: "background")
    public static let location = APNsPushType(rawValue: "location")
    /// VoIP (topic `<bundle id>.voip`; payload up to 5120 bytes).
    public static let voip = APNsPushType(rawValue: "voip")
    public static let complication = APNsPushType(rawValue: "complication")
    public static let fileprovider = APNsPushType(rawValue: "fileprovider")
    public static let mdm = APNsPushType(rawValue: "mdm")
    public static let liveactivity = APNsPushType(rawValue: "liveactivity")
    public static let pushtotalk = APNsPushType(rawValue: "pushtotalk")
    public static let widgets = APNsPushType(rawValue: "widgets")
    public static let controls = APNsPushType(rawValue: "controls")
}
