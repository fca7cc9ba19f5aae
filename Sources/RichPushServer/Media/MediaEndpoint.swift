import Foundation

/// `GET`/`HEAD /m/<sha256>.<ext>` (open: the devices' notification service extensions fetch it):
/// a push-optimised file from the store, with `Content-Type`, `Content-Length`, `ETag` (the
/// SHA-256, quoted), `Cache-Control: public, max-age=31536000, immutable` (the name is the
/// content, so it never changes), `If-None-Match` → `304`, and one byte range (`Range:
/// bytes=a-b`, `a-`, `-n` → `206` with `Content-Range`; past the end → `416`). Several ranges in
/// one request are not served as `multipart/byteranges`: the whole file is answered (`200`), as
/// RFC 9110 allows; AVPlayer and the system ask for one range at a time.
///
/// Files come from this instance's memory when it holds them (`MediaObjectCache`, least
/// recently used out); a miss reads the store one at a time (`reads`), so a flood of names —
/// hits or not — holds at most one store connection and never starves sends and receipts.
struct MediaEndpoint: Endpoint {
    let context: ServerContext
    /// The store reads of misses, one at a time.
    let reads = BlockingQueue(label: "richpush.media.reads", concurrent: false)

    var access: EndpointAccess { .open }

    /// `Cache-Control` of every file answer.
    static let cacheControl = "public, max-age=31536000, immutable"

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let name = request.pathParameter
        guard let dot = name.firstIndex(of: "."), MediaObject.isDigest(name[..<dot]) else {
            throw Self.notFound
        }
        let sha256 = String(name[..<dot]), ext = String(name[name.index(after: dot)...])
        let object: MediaObject
        if let cached = context.mediaCache.object(sha256) {
            object = cached
        } else {
            let store = context.store
            let read: MediaObject?
            do {
                read = try await reads.run { try store.media(sha256) }
            } catch {
                throw HTTPResponseError.store(error, retry: false)
            }
            guard let read else { throw Self.notFound }
            context.mediaCache.keep(read)
            object = read
        }
        guard object.fileExtension == ext else { throw Self.notFound }
        let etag = "\"\(object.sha256)\""
        var headers: [(name: String, value: String)] = [("ETag", etag), ("Cache-Control", Self.cacheControl), ("Accept-Ranges", "bytes")]
        if let match = request.header("If-None-Match"), Self.matches(match, etag: etag) {
            return .empty(304, headers: headers)
        }
        let size = object.bytes.count
        var ranged = request.header("Range")
        if let ifRange = request.header("If-Range"), ifRange.trimmingCharacters(in: .whitespaces) != etag { ranged = nil }
        if let ranged {
            switch MediaByteRange.parse(ranged, size: size) {
            case .whole:
                break
            case .unsatisfiable:
                headers.append(("Content-Range", "bytes */\(size)"))
                throw HTTPResponseError(
                    status: 416, code: "range_not_satisfiable", message: "the file is \(size) bytes; ask for a range that starts before byte \(size)",
                    headers: headers)
            case .part(let range):
                headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"))
                return ServerResponse(status: 206, contentType: object.contentType, body: object.bytes.subdata(in: range), headers: headers)
            }
        }
        return ServerResponse(status: 200, contentType: object.contentType, body: object.bytes, headers: headers)
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, `*` matches).
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }

    private static let notFound = HTTPResponseError(
        status: 404, code: "not_found", message: "no such media file: the edge serves /m/<sha256>.<ext> for files it optimised and still keeps")
}
