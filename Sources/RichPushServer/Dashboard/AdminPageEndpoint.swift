/// A page of the dashboard: for the admin (Bearer token or session cookie; without either, the
/// login form), never cached.
protocol AdminPageEndpoint: Endpoint {}

extension AdminPageEndpoint {
    var access: EndpointAccess { .admin }
    var noStore: Bool { true }
    var isPage: Bool { true }
}
