import RichPushCore

/// The `aps.alert` of an ActivityKit push notification: a title, a body and an optional sound.
///
/// Apple: a `start` must carry one ("Include an alert in the JSON payload"); on an update it
/// lights the screen and shows the expanded presentation (or a banner). Title and body are plain
/// strings here; for localized ones give the dictionary (`loc-key`, `loc-args`) as `RichPushJSONValue`
/// through `LiveActivityPayload.alert`.
public struct LiveActivityAlert: Sendable, Hashable {
    /// The alert's title.
    public var title: String
    /// The alert's body.
    public var body: String
    /// The sound file name in the app bundle (`"chime.aiff"`), `"default"`, or `nil` for none.
    public var sound: String?

    /// Makes an alert.
    /// - Parameters:
    ///   - title: the title.
    ///   - body: the body.
    ///   - sound: the sound, if any.
    public init(title: String, body: String, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// `{"title": …, "body": …, "sound": …}`.
    public var jsonValue: RichPushJSONValue {
        var alert: [String: RichPushJSONValue] = ["title": .string(title), "body": .string(body)]
        if let sound { alert["sound"] = .string(sound) }
        return .object(alert)
    }
}
