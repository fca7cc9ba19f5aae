import Foundation
import RichPushCore

/// What the project's pushes use, as the user says (and as `--payload` shows): what the doctor
/// checks the project's capabilities against.
public struct DoctorExpectations: Sendable, Equatable {
    /// The interruption levels the pushes are sent with (`time-sensitive` and `critical` need
    /// an entitlement each).
    public var interruptionLevels: Set<RichPushInterruptionLevel> = []
    /// Whether the pushes carry messages from people (communication notifications), even when
    /// nothing in the project says so yet.
    public var messages = false

    /// Nothing said: the doctor checks what the project itself shows.
    public init() {}

    /// What the pushes use.
    /// - Parameters:
    ///   - interruptionLevels: the interruption levels sent.
    ///   - messages: whether messages from people are sent.
    public init(interruptionLevels: Set<RichPushInterruptionLevel>, messages: Bool = false) {
        self.interruptionLevels = interruptionLevels
        self.messages = messages
    }

    /// These expectations with what a payload shows: its `aps.interruption-level`, and a message
    /// (`sender`) along the service extension's key paths.
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - senderKeyPaths: where the extension looks for the sender.
    /// - Returns: the expectations, widened.
    func adding(payload: Data?, senderKeyPaths: [RichPushPayloadKeyPath]) -> DoctorExpectations {
        guard let payload, let json = try? RichPushJSONValue.parse(payload) else { return self }
        var widened = self
        if let level = json["aps"]?["interruption-level"]?.stringValue { widened.interruptionLevels.insert(RichPushInterruptionLevel(rawValue: level)) }
        if RichPushMessage.read(from: json, senderKeyPaths: senderKeyPaths).message != nil { widened.messages = true }
        return widened
    }
}
