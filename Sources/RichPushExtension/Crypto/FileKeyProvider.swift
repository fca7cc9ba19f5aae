import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Keys read from a JSON file `{"k-2": "<base64 of 32 bytes>", …}` (`simulate --keys FILE`, or a
/// file in the App Group container on iOS).
@_spi(RichPushInternal)
public struct FileKeyProvider: RichPushKeyProvider {
    private let keys: [String: Data]

    /// The key ids the file holds, sorted.
    public var keyIDs: [String] { keys.keys.sorted() }

    /// Makes a provider from keys in memory.
    ///
    /// - Parameter keys: key id → 32-byte key.
    /// - Throws: `RichPushError` `configuration` when a key is not 32 bytes.
    public init(keys: [String: Data]) throws {
        for (kid, key) in keys where key.count != AESGCM.keyBytes {
            throw RichPushError(
                code: .configuration,
                message: "key '\(kid)' is \(key.count) bytes; AES-256 keys are 32 bytes (make one with `openssl rand -base64 32`)"
            )
        }
        self.keys = keys
    }

    /// Reads a key file.
    ///
    /// - Parameters:
    ///   - file: a JSON object mapping key ids to base64 keys of 32 bytes.
    ///   - option: where the path came from (`--key`, `--keys`), named in the message when the
    ///     file cannot be read.
    /// - Throws: `RichPushError` `io` when the file cannot be read (`FileProblem`), `configuration`
    ///   when it is not such an object; the message names the file and the key id, never the key.
    public init(contentsOf file: URL, option: String? = nil) throws {
        let data = try FileProblem.read(file.relativePath, what: "the key file", option: option)
        let json: RichPushJSONValue
        do {
            json = try RichPushJSONValue.parse(data)
        } catch {
            throw RichPushError(code: .configuration, message: "key file \(file.path) is not JSON; expected {\"KID\": \"<base64 of 32 bytes>\"}")
        }
        guard let object = json.objectValue, !object.isEmpty else {
            throw RichPushError(code: .configuration, message: "key file \(file.path) must be a non-empty JSON object {\"KID\": \"<base64 of 32 bytes>\"}")
        }
        var keys: [String: Data] = [:]
        for (kid, value) in object {
            guard let text = value.stringValue, let key = Data(base64Encoded: text) else {
                throw RichPushError(code: .configuration, message: "key '\(kid)' in \(file.path) is not a base64 string")
            }
            keys[kid] = key
        }
        try self.init(keys: keys)
    }

    public func key(for kid: String) -> Data? { keys[kid] }
}
