extension RichPushJSONValue {
    /// Returns a copy with `value` stored at `path`, creating intermediate objects.
    ///
    /// Each component is one key (a literal dotted key such as `gcm.message_id` cannot be
    /// created this way; write it as a custom key instead).
    /// - Parameters:
    ///   - value: the value to store.
    ///   - path: where to store it.
    /// - Returns: the new value; a non-object at an intermediate step is replaced by an object.
    public func setting(_ value: RichPushJSONValue, at path: RichPushPayloadKeyPath) -> RichPushJSONValue {
        Self.set(value, at: path.components[...], in: self)
    }

    /// Returns a copy without the member at `path` (nothing changes when it is absent).
    ///
    /// - Parameter path: the member to remove.
    /// - Returns: the new value.
    public func removing(_ path: RichPushPayloadKeyPath) -> RichPushJSONValue {
        Self.remove(path.components[...], in: self)
    }

    private static func set(_ value: RichPushJSONValue, at rest: ArraySlice<String>, in node: RichPushJSONValue) -> RichPushJSONValue {
        guard let key = rest.first else { return value }
        var object = node.objectValue ?? [:]
        object[key] = set(value, at: rest.dropFirst(), in: object[key] ?? .object([:]))
        return .object(object)
    }

    private static func remove(_ rest: ArraySlice<String>, in node: RichPushJSONValue) -> RichPushJSONValue {
        guard let key = rest.first, var object = node.objectValue else { return node }
        if rest.count == 1 {
            object[key] = nil
        } else if let child = object[key] {
            object[key] = remove(rest.dropFirst(), in: child)
        }
        return .object(object)
    }
}
