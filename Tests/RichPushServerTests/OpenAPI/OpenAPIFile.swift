import Foundation
import RichPushTestSupport

/// The repository's `openapi.yaml`, read as a JSON tree: PyYAML (`yaml.safe_load`, installed with
/// schemathesis by `scripts/install-deps.sh`) turns the YAML into JSON, which Foundation reads.
enum OpenAPIFile {
    /// `openapi.yaml` at the package root.
    static let url = Fixtures.packageRoot.appendingPathComponent("openapi.yaml")

    /// The document as nested dictionaries and arrays.
    ///
    /// - Returns: the root object.
    /// - Throws: `TestSupportError` when python3 or PyYAML fails, or the document is not an object.
    static func load() async throws -> [String: Any] {
        let script = "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1], encoding='utf-8')), sys.stdout)"
        let run = try await ChildProcess("python3", ["-c", script, url.path]).run(timeout: 60)
        guard run.status == 0 else { throw TestSupportError("python3 could not read \(url.path) as YAML: \(run.stderr)") }
        guard let root = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            throw TestSupportError("openapi.yaml is not a mapping at the top")
        }
        return root
    }

    /// The value at a JSON pointer (RFC 6901: `/`-separated, `~1` for `/`, `~0` for `~`).
    ///
    /// - Parameters:
    ///   - pointer: e.g. `/components/schemas/PushID/maxLength`.
    ///   - document: the root.
    /// - Returns: the value, `nil` when a step is missing.
    static func value(at pointer: String, in document: Any) -> Any? {
        var node: Any? = document
        for raw in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let step = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let object = node as? [String: Any] {
                node = object[step]
            } else if let array = node as? [Any], let index = Int(step), array.indices.contains(index) {
                node = array[index]
            } else {
                return nil
            }
        }
        return node
    }
}
