import Foundation

/// `GET /` and `GET /dashboard` (admin, Bearer or session cookie; without either, the login
/// form): the dashboard page, with paging, push-id search and a date range (`ListParameters`; a
/// parameter it cannot use is shown on the page, the rest still answered, with status 400).
struct DashboardEndpoint: AdminPageEndpoint {
    let context: ServerContext

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        var problem: String?
        var parameters = ListParameters(query: PushQuery(limit: DashboardPage.pageSize))
        do {
            parameters = try ListParameters.parse({ request.query[$0] }, defaultLimit: DashboardPage.pageSize)
        } catch let invalid as HTTPResponseError {
            problem = invalid.message
        }
        let query = parameters.query
        let (snapshot, page, mediaCheck) = try await context.read { store in
            let range = DashboardQuery(maximumBuckets: 60, fromMs: query.startedFromMs, toMs: query.startedBeforeMs)
            return (try store.dashboard(range), try store.pushes(query), try store.mediaCheckTotals(fromMs: range.fromMs, toMs: range.toMs))
        }
        var view = DashboardPage.View(
            snapshot: snapshot, page: page, parameters: parameters, problem: problem, generatedAtMs: ServerContext.nowMs, mediaCheck: mediaCheck)
        if let webhooks = context.webhooks {
            view.webhooks = WebhookDashboardSection.render(
                webhooks.settings.endpoints, status: await webhooks.status(), settings: webhooks.settings, nowMs: view.generatedAtMs)
        }
        return .html(problem == nil ? 200 : 400, DashboardPage.render(view))
    }
}
