import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The two stores the shared store tests run against.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
}

/// A fresh, empty place for one test's store: a SQLite file in a temporary directory, or a new
/// database in the process's throwaway PostgreSQL cluster. Removed (dropped) when released.
final class StoreFixture: @unchecked Sendable {
    let backend: StoreBackend
    private let directory: URL?
    let database: PostgresTestDatabase?

    private init(backend: StoreBackend, directory: URL?, database: PostgresTestDatabase?) {
        self.backend = backend
        self.directory = directory
        self.database = database
    }

    /// Makes an empty location for `backend`.
    static func make(_ backend: StoreBackend) async throws -> StoreFixture {
        switch backend {
        case .sqlite:
            return StoreFixture(backend: backend, directory: try Fixtures.temporaryDirectory("store"), database: nil)
        case .postgres:
            let cluster = try await PostgresTestCluster.shared()
            return StoreFixture(backend: backend, directory: nil, database: try await cluster.makeDatabase())
        }
    }

    /// What `richpush serve --db` takes for this location.
    var dbArgument: String {
        if let database { return database.url }
        return directory?.appendingPathComponent("store.sqlite").path ?? ""
    }

    /// Opens the store (again: every call opens a new store on the same data), off the
    /// cooperative pool.
    func open() async throws -> TestStore {
        let backend = self.backend, location = dbArgument
        return try await TestStore.open {
            switch backend {
            case .sqlite: return try SQLiteStore(path: location)
            case .postgres: return try PostgresStore(url: location, log: { _ in }, clock: .caller)
            }
        }
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
        database?.drop()
    }
}
