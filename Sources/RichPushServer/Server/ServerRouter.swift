import Foundation

/// Admission and the endpoints behind one route table: what the HTTP layer calls for every
/// request (`gate` on its head, `respond` once its body is in), and what tests call in process
/// (`handle`), the same code either way.
struct ServerRouter: Sendable {
    let admission: Admission

    /// Judges a request's line and headers (`Admission`).
    ///
    /// - Parameter head: the request without its body.
    /// - Returns: how much body to read, or the refusal.
    func gate(_ head: ServerRequest) -> HTTPAdmission {
        do {
            return .read(maximumBody: try admission.admit(head).maximumBody)
        } catch {
            return .refuse(error.response)
        }
    }

    /// Answers an admitted request: its endpoint's answer, or its thrown error rendered.
    ///
    /// - Parameter request: the complete request.
    /// - Returns: the answer (`Cache-Control: no-store` on an admin endpoint's, refusals included).
    func respond(_ request: ServerRequest) async -> ServerResponse {
        guard let (route, parameter) = admission.routes.route(for: request.routingPath), let endpoint = route.endpoint(request.routingMethod) else {
            return HTTPResponseError(status: 404, code: "not_found", message: "no route for \(String(request.path.prefix(200)))").response
        }
        var request = request
        request.pathParameter = RequestTarget.parameter(parameter)
        let response: ServerResponse
        do {
            response = try await endpoint.respond(to: request)
        } catch let error as HTTPResponseError {
            response = error.response
        } catch {
            response = HTTPResponseError(status: 500, code: "internal_error", message: "the request failed: \(error)").response
        }
        return endpoint.noStore ? response.notStored : response
    }

    /// The whole path in process, without a socket: admission, the body bound (a longer body is
    /// dropped and flagged, as libmicrohttpd's reader does), then `respond`.
    ///
    /// - Parameter request: the request with its body.
    /// - Returns: the answer.
    func handle(_ request: ServerRequest) async -> ServerResponse {
        var request = request
        switch gate(request) {
        case .refuse(let response):
            return response
        case .read(let maximumBody):
            if request.body.count > maximumBody {
                request.body = Data()
                request.bodyTooLarge = true
            }
            return await respond(request)
        }
    }
}
