import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// `LiveActivityPriorityBudget`: priority 10 per activity per sliding hour, then 5, said so.
@Suite struct LiveActivityPriorityBudgetTests {
    @Test func theEleventhPriorityTenPushInAnHourIsSentWithFive() throws {
        let start = Date(timeIntervalSince1970: 1_796_385_600)
        var budget = LiveActivityPriorityBudget(limitPerHour: 10)
        for i in 0..<10 {
            let decision = budget.admit(activity: "match-1", requested: 10, at: start.addingTimeInterval(Double(i) * 60))
            #expect(decision.priority == 10 && !decision.steppedDown && decision.used == i + 1)
        }
        let eleventh = budget.admit(activity: "match-1", requested: nil, at: start.addingTimeInterval(700))
        #expect(eleventh.priority == 5)
        #expect(eleventh.steppedDown)
        #expect(eleventh.finding?.code == .prioritySteppedDown)
        #expect(eleventh.finding?.keyPath == "apns-priority")
        // Priority 5 is not counted; another activity has its own budget.
        #expect(budget.admit(activity: "match-1", requested: 5, at: start.addingTimeInterval(710)).steppedDown == false)
        #expect(budget.admit(activity: "match-2", requested: 10, at: start.addingTimeInterval(720)).priority == 10)
        // The window slides: an hour after the first push, one slot is free again.
        #expect(budget.used(by: "match-1", at: start.addingTimeInterval(3600)) == 9)
        #expect(budget.admit(activity: "match-1", requested: 10, at: start.addingTimeInterval(3600)).priority == 10)

        // Kept in a file, read back with the limit in force; a file that is not a budget is named.
        let directory = try Fixtures.temporaryDirectory("budget")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("budget.json")
        try budget.save(to: file, at: start.addingTimeInterval(3600))
        let loaded = try LiveActivityPriorityBudget.load(from: file, limitPerHour: 3)
        #expect(loaded.limitPerHour == 3)
        #expect(loaded.used(by: "match-1", at: start.addingTimeInterval(3600)) == 10)
        try Data("[1]".utf8).write(to: file)
        let error = #expect(throws: RichPushError.self) { try LiveActivityPriorityBudget.load(from: file, limitPerHour: 3) }
        #expect(error?.message.contains("not a RichPush budget file") == true)
    }
}
