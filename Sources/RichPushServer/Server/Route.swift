import Foundation

/// What a request path names, which methods it takes, who may use it and how large a body it may
/// send — all known from the request line alone, so the gate decides before any body is read.
enum Route: Equatable {
    case receipts
    case healthz
    case metrics
    /// `GET /`: the dashboard (list of pushes with paging, search, date range).
    case dashboard
    /// `GET /pushes/{push_id}`: one push's page.
    case pushPage(String)
    case login
    case logout
    /// `GET` / `POST /v1/pushes`.
    case pushes
    /// `GET /v1/pushes/{push_id}`.
    case push(String)
    /// `POST /v1/pushes/{push_id}/sends`: sends recorded by another system (Bearer only).
    case recordSends(String)
    /// `POST /v1/devices`: an app registers its token.
    case devices
    /// `DELETE /v1/devices/{token}`.
    case device(String)
    case notFound

    /// Who may use a route.
    enum Access {
        /// Anyone (devices, monitoring).
        case open
        /// The admin: Bearer token, or the session cookie (then non-GET needs a same-origin `Origin`).
        case admin
        /// The admin's scripts only: the Bearer token (the session cookie is not accepted).
        case adminBearer
        /// `/login`, `/logout`: anyone, but a POST must come from this server's own pages.
        case session
    }

    /// The route for a path (libmicrohttpd has percent-decoded it).
    init(path: String) {
        switch path {
        case "/v1/receipts": self = .receipts
        case "/healthz": self = .healthz
        case "/metrics": self = .metrics
        case "/", "/dashboard": self = .dashboard
        case "/login": self = .login
        case "/logout": self = .logout
        case "/v1/pushes": self = .pushes
        case "/v1/devices": self = .devices
        default:
            if path.hasPrefix("/v1/pushes/"), path.hasSuffix("/sends"), path.count > "/v1/pushes//sends".count {
                self = .recordSends(String(path.dropFirst("/v1/pushes/".count).dropLast("/sends".count)))
            } else if path.hasPrefix("/v1/devices/") {
                self = .device(String(path.dropFirst("/v1/devices/".count)))
            } else if path.hasPrefix("/v1/pushes/") {
                self = .push(String(path.dropFirst("/v1/pushes/".count)))
            } else if path.hasPrefix("/pushes/") {
                self = .pushPage(String(path.dropFirst("/pushes/".count)))
            } else {
                self = .notFound
            }
        }
    }

    /// The methods the route takes (`HEAD` is answered as `GET`).
    var methods: [String] {
        switch self {
        case .receipts, .logout, .recordSends, .devices: return Self.post
        case .healthz, .metrics, .dashboard, .pushPage, .push: return Self.get
        case .login, .pushes: return Self.getPost
        case .device: return Self.delete
        case .notFound: return []
        }
    }

    private static let delete = ["DELETE"]
    private static let post = ["POST"]
    private static let get = ["GET"]
    private static let getPost = ["GET", "POST"]

    /// Who may use the route.
    var access: Access {
        switch self {
        case .receipts, .healthz, .metrics, .notFound, .devices, .device: return .open
        case .dashboard, .pushPage, .pushes, .push: return .admin
        case .recordSends: return .adminBearer
        case .login, .logout: return .session
        }
    }

    /// Whether the route answers with an HTML page (a 401 there is the login form).
    var isPage: Bool {
        switch self {
        case .dashboard, .pushPage, .login: return true
        default: return false
        }
    }

    /// The largest body the route reads for `method`, in bytes: receipts and device
    /// registrations 8 KB (`receiptBytes`), `POST /v1/pushes` and recorded sends 1 MB (only once
    /// the admin token checked out), `POST /login` 4 KB, anything else 1 KB.
    func bodyLimit(method: String, receiptBytes: Int) -> Int {
        switch self {
        case .receipts, .devices: return receiptBytes
        case .pushes where method == "POST": return PushSendRequest.maximumBodyBytes
        case .recordSends: return RecordedSendRequest.maximumBodyBytes
        case .login where method == "POST": return 4_096
        default: return 1_024
        }
    }
}
