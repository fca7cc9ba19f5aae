import Foundation

@testable import RichPushServer

/// The listing and dashboard reads of issue 10, off the cooperative pool like the rest of `TestStore`.
extension TestStore {
    func pushes(_ query: PushQuery) async throws -> PushPage { try await run { try $0.pushes(query) } }
    func pushDetail(_ id: String) async throws -> PushDetail? { try await run { try $0.pushDetail(id) } }
    func dashboard(_ query: DashboardQuery) async throws -> DashboardSnapshot { try await run { try $0.dashboard(query) } }
}
