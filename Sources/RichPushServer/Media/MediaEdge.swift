import Foundation

/// The media edge in the server: its route, and storing an optimised file so that devices
/// fetch it from `--public-url` (see `MediaEdgeSettings`, `MediaEndpoint`).
enum MediaEdge {
    /// `GET /m/<sha256>.<ext>` when the edge is on; nothing otherwise.
    ///
    /// - Parameter context: the server's context.
    /// - Returns: the edge's routes.
    static func routes(_ context: ServerContext) -> [RouteTable.Route] {
        guard context.configuration.mediaEdge != nil else { return [] }
        return [.init(pattern: .prefix("/m/"), endpoints: [("GET", MediaEndpoint(context: context))])]
    }
}

extension RouteTable {
    /// The table with `more` routes matched after these.
    ///
    /// - Parameter more: the routes to add.
    /// - Returns: the longer table.
    func adding(_ more: [Route]) -> RouteTable { RouteTable(routes: routes + more) }
}
