/// The key of one `push_elapsed` row: a push and an `elapsed_ms` value.
struct PushElapsedKey: Hashable {
    var pushID: String
    var ms: Int
}
