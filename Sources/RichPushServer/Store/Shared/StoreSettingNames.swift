/// What the program calls the settings the stores' and the migration's messages point to, so a
/// failure names what to change. The library names no command-line option: the default describes
/// each setting in words; a program passes its own names (the CLI's `SettingNames`).
public struct StoreSettingNames: Sendable, Equatable {
    /// A setting a store error is about; its raw value is the `setting` of that `RichPushError`.
    public enum Setting: String, Sendable {
        /// The server's database: a SQLite file or a PostgreSQL URL.
        case database
        /// The SQLite file a migration copies from.
        case migrationSource = "migration source"
        /// The PostgreSQL URL a migration copies into.
        case migrationTarget = "migration target"
    }

    /// The server's database setting.
    public var database: String
    /// The migration's source setting.
    public var migrationSource: String
    /// The migration's target setting.
    public var migrationTarget: String

    /// Names of one program's settings.
    ///
    /// - Parameters:
    ///   - database: the server's database setting.
    ///   - migrationSource: the migration's source setting.
    ///   - migrationTarget: the migration's target setting.
    public init(database: String, migrationSource: String, migrationTarget: String) {
        self.database = database
        self.migrationSource = migrationSource
        self.migrationTarget = migrationTarget
    }

    /// The name of `setting`.
    ///
    /// - Parameter setting: the setting.
    /// - Returns: what this program calls it.
    public subscript(_ setting: Setting) -> String {
        switch setting {
        case .database: database
        case .migrationSource: migrationSource
        case .migrationTarget: migrationTarget
        }
    }

    /// Each setting described in words (the default of a store opened without names).
    public static let descriptive = StoreSettingNames(
        database: "database setting", migrationSource: "migration source", migrationTarget: "migration target")
}
