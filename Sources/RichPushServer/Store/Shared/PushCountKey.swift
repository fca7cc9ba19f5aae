/// The key of one `push_counts` row: a push, an event, an outcome and a reason (`""` = none).
struct PushCountKey: Hashable {
    var pushID: String
    var event: String
    var outcome: String
    var reason: String
}
