import Foundation

extension StatisticsStore {
    /// Default: whether `push(_:)` finds the push.
    public func pushExists(_ pushID: String) throws -> Bool { try push(pushID) != nil }
    /// Default: the store cannot tell.
    public func growth() throws -> StoreGrowth? { nil }
    /// Default: the store folds nothing.
    public var foldedCodes: Int { 0 }
}
