/// What the program calls its FCM settings in messages. The default describes each in words; a
/// program passes its own names (the CLI's `ProviderSettingNames`).
public struct FCMSettingNames: Sendable, Equatable {
    /// Another FCM endpoint (a test server).
    public var url: String
    /// The service-account JSON file.
    public var serviceAccount: String

    /// Names of one program's settings.
    ///
    /// - Parameters:
    ///   - url: the endpoint setting.
    ///   - serviceAccount: the service-account setting.
    public init(url: String, serviceAccount: String) {
        self.url = url
        self.serviceAccount = serviceAccount
    }

    /// Each setting described in words.
    public static let descriptive = FCMSettingNames(url: "the FCM endpoint setting", serviceAccount: "the service-account setting")
}
