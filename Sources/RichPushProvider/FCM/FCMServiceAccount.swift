import Foundation
@_spi(RichPushInternal) import RichPushCore

/// A Google service-account key file (the JSON downloaded from the Firebase console).
///
/// Only `project_id`, `client_email`, `private_key` and `token_uri` are read; the private key is
/// never printed or put in an error message.
public struct FCMServiceAccount: Sendable {
    /// The Firebase project id (`project_id`).
    public var projectID: String
    /// The service account's e-mail (`client_email`), the JWT `iss`.
    public var clientEmail: String
    /// The OAuth2 token endpoint (`token_uri`), overridable for tests.
    public var tokenURI: String
    /// The RSA private key, PEM (`private_key`).
    let privateKeyPEM: String

    /// Reads a service-account JSON.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - label: the file name, for messages.
    /// - Throws: `RichPushError` with code `configuration` naming the missing member.
    public init(json data: Data, label: String = "the service account file") throws {
        let json = try RichPushJSONValue.parse(data)
        func member(_ name: String) throws -> String {
            guard let value = json[name]?.stringValue, !value.isEmpty else {
                throw RichPushError(
                    code: .configuration,
                    message: "\(label) has no \"\(name)\"; download the service-account key again (Firebase console → Project settings → Service accounts)")
            }
            return value
        }
        projectID = try member("project_id")
        clientEmail = try member("client_email")
        privateKeyPEM = try member("private_key")
        tokenURI = json["token_uri"]?.stringValue ?? "https://oauth2.googleapis.com/token"
    }

    /// Reads a service-account JSON file.
    ///
    /// - Parameters:
    ///   - path: the file (Firebase console → Project settings → Service accounts → Generate new
    ///     private key).
    ///   - option: where the path came from (`--fcm-service-account`), named in the message when
    ///     the file cannot be read.
    /// - Throws: `RichPushError` with code `io` (unreadable, `FileProblem`), `invalid_json` or
    ///   `configuration`.
    public init(contentsOf path: String, option: String? = nil) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let code = FileProblem.errno(of: error) ?? EIO
            throw FileProblem.error(
                .read, path: path, what: "the FCM service-account file", option: option, errno: code,
                alternative: code == ENOENT ? "download it: Firebase console → Project settings → Service accounts → Generate new private key" : nil,
                underlying: error)
        }
        do {
            try self.init(json: data, label: "the service-account file \(path)")
        } catch let error as RichPushError where error.code == .invalidJSON {
            throw RichPushError(code: error.code, message: "the service-account file \(path) is \(error.message)", underlying: error)
        }
    }
}
