import Foundation

@testable import RichPushServer

/// Compares the operations of an OpenAPI document (method + path template) with a route table,
/// both ways, through the router itself: a documented template is instantiated (`{x}` → a
/// sample value) and routed; each route's paths are instantiated the same way and matched against
/// the documented templates. `HEAD` is answered as `GET`, so a documented `HEAD` needs a `GET` route.
enum OpenAPIRouteComparison {
    /// The methods an OpenAPI path item may hold operations for.
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Every operation: its path template, upper-case method and the operation object.
    ///
    /// - Parameter document: the document's root.
    /// - Returns: the operations, sorted by path then method.
    static func operations(_ document: [String: Any]) -> [(path: String, method: String, operation: [String: Any])] {
        let paths = document["paths"] as? [String: Any] ?? [:]
        var out: [(String, String, [String: Any])] = []
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            guard let item = item as? [String: Any] else { continue }
            for method in methods {
                if let operation = item[method] as? [String: Any] { out.append((path, method.uppercased(), operation)) }
            }
        }
        return out
    }

    /// A concrete path for a template: each `{name}` replaced by `p1`.
    ///
    /// - Parameter template: e.g. `/m/{sha256}.{ext}`.
    /// - Returns: e.g. `/m/p1.p1`.
    static func sample(_ template: String) -> String {
        template.replacingOccurrences(of: #"\{[^}/]+\}"#, with: "p1", options: .regularExpression)
    }

    /// Whether `path` is an instance of `template` (each `{name}` one non-empty segment part).
    static func matches(_ path: String, template: String) -> Bool {
        var pattern = "^"
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            pattern += NSRegularExpression.escapedPattern(for: String(rest[..<open])) + "[^/]+"
            rest = rest[rest.index(after: close)...]
        }
        pattern += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
        return path.range(of: pattern, options: .regularExpression) != nil
    }

    /// The concrete paths that exercise a route.
    static func samples(_ pattern: RouteTable.Pattern) -> [String] {
        switch pattern {
        case .exact(let paths): return paths
        case .prefix(let prefix): return [prefix + "p1.p1"]
        case .enclosed(let prefix, let suffix): return [prefix + "p1.p1" + suffix]
        }
    }

    /// What differs between the document and the routes, one line each (empty when they match).
    ///
    /// - Parameters:
    ///   - document: the OpenAPI document's root.
    ///   - routes: the server's route table.
    /// - Returns: e.g. `GET /healthz: in the route table, not in openapi.yaml`.
    static func mismatches(document: [String: Any], routes: RouteTable) -> [String] {
        let documented = operations(document)
        var out: [String] = []
        for (path, method, _) in documented {
            let routed = method == "HEAD" ? "GET" : method
            // The route the template's instance reaches must take the method, and be the route
            // of this template (`/v1/pushes/{push_id}/opens` reaches `/v1/pushes/{push_id}`).
            guard let route = routes.route(for: sample(path))?.route, route.endpoint(routed) != nil,
                samples(route.pattern).contains(where: { matches($0, template: path) })
            else {
                out.append("\(method) \(path): in openapi.yaml, not in the route table")
                continue
            }
        }
        for route in routes.routes {
            for path in samples(route.pattern) {
                for method in route.methods where !documented.contains(where: { $0.method == method && matches(path, template: $0.path) }) {
                    let shown = documented.first { matches(path, template: $0.path) }?.path ?? path
                    out.append("\(method) \(shown): in the route table, not in openapi.yaml")
                }
            }
        }
        return out
    }
}
