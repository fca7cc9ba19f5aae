/// A build setting after `$(…)` expansion: its value, or why it has none (never a guess).
public enum ResolvedSetting: Sendable, Hashable, CustomStringConvertible {
    /// Every reference was resolved.
    case value(String)
    /// Some reference could not be: the setting is not set anywhere, a cycle, an unknown modifier.
    case unresolved(reason: String)

    /// The value, or `nil` when unresolved.
    public var value: String? {
        if case .value(let v) = self { return v }
        return nil
    }

    /// The value, or `unresolved (reason)`.
    public var description: String {
        switch self {
        case .value(let v): return v
        case .unresolved(let reason): return "unresolved (\(reason))"
        }
    }
}
