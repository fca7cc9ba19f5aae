/// The server's paths, each with the endpoint for each method it takes, matched in order.
struct RouteTable: Sendable {
    /// How a route's path is matched.
    enum Pattern: Sendable {
        /// One of these paths exactly.
        case exact([String])
        /// `prefix` + a parameter (possibly empty), e.g. `/v1/pushes/{push_id}`.
        case prefix(String)
        /// `prefix` + a non-empty parameter + `suffix`, e.g. `/v1/pushes/{push_id}/sends`.
        case enclosed(String, String)

        /// The path parameter when `path` matches (`""` for an exact path), else `nil`.
        ///
        /// Compared byte by byte (UTF-8), not by `Character`: a parameter that starts with a
        /// combining mark (`/pushes/\u{0301}x`) would otherwise fuse with the prefix's `/` into
        /// one grapheme, and the path would match no route (found by schemathesis, issue 23).
        func parameter(in path: String) -> String? {
            let bytes = path.utf8
            switch self {
            case .exact(let paths):
                return paths.contains(where: { $0.utf8.elementsEqual(bytes) }) ? "" : nil
            case .prefix(let prefix):
                guard bytes.starts(with: prefix.utf8) else { return nil }
                return String(decoding: bytes.dropFirst(prefix.utf8.count), as: UTF8.self)
            case .enclosed(let prefix, let suffix):
                guard bytes.count > prefix.utf8.count + suffix.utf8.count, bytes.starts(with: prefix.utf8),
                    bytes.reversed().starts(with: suffix.utf8.reversed())
                else { return nil }
                return String(decoding: bytes.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count), as: UTF8.self)
            }
        }
    }

    /// One path and its endpoints by method (`HEAD` is answered as `GET`).
    struct Route: Sendable {
        let pattern: Pattern
        let endpoints: [(method: String, endpoint: any Endpoint)]

        /// The methods the route takes, for `405` and `Allow`.
        var methods: [String] { endpoints.map(\.method) }

        /// The endpoint for a method.
        func endpoint(_ method: String) -> (any Endpoint)? {
            endpoints.first { $0.method == method }?.endpoint
        }
    }

    let routes: [Route]

    /// The first route matching `path`, with its parameter.
    ///
    /// - Parameter path: the decoded path.
    /// - Returns: the route and the path parameter, or `nil` (a `404`).
    func route(for path: String) -> (route: Route, parameter: String)? {
        for route in routes {
            if let parameter = route.pattern.parameter(in: path) { return (route, parameter) }
        }
        return nil
    }
}
