import Foundation
import RichPushCore

/// Why a `POST /v1/pushes` request was refused before anything was sent: the HTTP status, a
/// stable code, the field when one is to blame, and the lint findings for a payload error.
public struct PushRequestError: Error, Sendable, Equatable {
    /// The HTTP status (400, 413).
    public var status: Int
    /// `invalid_request`, `payload_rejected`, `too_many_tokens`, `too_large`.
    public var code: String
    /// The request field at fault (`tokens`, `payload`, `priority`, …), if any.
    public var field: String?
    /// What was wrong and what to do.
    public var message: String
    /// The lint findings (errors and warnings) when the payload failed the checks.
    public var findings: [LintFinding]

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - code: the stable code.
    ///   - field: the field at fault.
    ///   - message: what was wrong and what to do.
    ///   - findings: lint findings.
    public init(status: Int = 400, code: String = "invalid_request", field: String? = nil, message: String, findings: [LintFinding] = []) {
        self.status = status
        self.code = code
        self.field = field
        self.message = message
        self.findings = findings
    }

    /// The response: `{"error": {"code", "field"?, "message", "findings"?: [{severity, code, key_path, message, fixable}]}}`.
    var response: HTTPResponse {
        var error: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        if !findings.isEmpty {
            error["findings"] = .array(
                findings.map { f in
                    .object([
                        "severity": .string(f.severity.rawValue), "code": .string(f.code.rawValue),
                        "key_path": f.keyPath.map(JSONValue.string) ?? .null, "message": .string(f.message),
                        "fixable": .bool(f.fixable),
                    ])
                })
        }
        let body = JSONValue.object(["error": .object(error)]).jsonData(sortedKeys: true)
        return HTTPResponse(status: status, contentType: "application/json", body: body + Data("\n".utf8))
    }
}
