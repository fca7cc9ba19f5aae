import RichPushCore
import RichPushProvider
import RichPushServer

/// The command line's names for the libraries' settings: the one place where the settings the
/// libraries' messages point to (described in words there, or carried as a `RichPushError`'s
/// `setting`) get the flags a reader types.
enum SettingNames {
    /// The stores' and `richpush migrate`'s: `serve --db`, `migrate --from` / `--to`.
    static let store = StoreSettingNames(database: "--db", migrationSource: "--from", migrationTarget: "--to")

    /// What `POST /v1/pushes`' 502 and 503 answers call `richpush serve`'s options.
    static let push = PushSettingNames(
        apnsKey: "--" + Provider.serve.key, apnsKeyID: "--" + Provider.serve.keyID, apnsTeamID: "--" + Provider.serve.teamID,
        apnsTopic: "--" + Provider.serve.topic, apnsSandbox: "--" + Provider.serve.sandbox, apnsURL: "--" + Provider.serve.url,
        apnsCAFile: "--" + Provider.serve.caFile, fcmServiceAccount: "--" + Provider.serve.fcmServiceAccount)
}

extension SettingNames {
    /// `richpush send`'s options for a notification's settings (`APNsNotification.Setting`).
    static let notification: [APNsNotification.Setting: String] = [
        .topic: "--topic", .priority: "--priority", .pushType: "--push-type", .collapseID: "--collapse-id",
    ]

    /// `error` with `richpush send`'s option for its notification setting added, e.g. "… (--priority)".
    ///
    /// - Parameter error: an `APNsNotification.validate` error.
    /// - Returns: the error naming the option, or `error` when it is about no notification setting.
    static func namingNotificationSetting(_ error: RichPushError) -> RichPushError {
        guard let raw = error.setting, let setting = APNsNotification.Setting(rawValue: raw), let option = notification[setting] else { return error }
        return RichPushError(code: error.code, message: error.message + " (\(option))", underlying: error.underlying, setting: raw, path: error.path)
    }
}

/// `SettingNames.Provider`, by its older name.
typealias ProviderSettingNames = SettingNames.Provider

extension SettingNames {
    /// The command line's names for the provider settings, per command: the one place where the
    /// libraries' settings (`APNsSettingNames`, `TransportSettingNames`, `FCMSettingNames`) get the
    /// flags a reader types. `richpush send` takes `--key`, `--key-id`, `--team-id`, `--topic`,
    /// `--sandbox`; `richpush serve` the same prefixed `--apns-`, and `--fcm-…` for FCM.
    struct Provider: Sendable {
        /// The command (`send`, `serve`), for usage errors.
        let command: String
        /// Option names without the leading `--`: the APNs key, key id, team id, topic, sandbox
        /// switch, endpoint and CA file; the FCM service account, endpoint, token endpoint and CA file.
        let key: String, keyID: String, teamID: String, topic: String, sandbox: String, url: String, caFile: String
        let fcmServiceAccount: String, fcmURL: String, fcmTokenURL: String, fcmCAFile: String

        /// `richpush send`'s options.
        static let send = Provider(
            command: "send", key: "key", keyID: "key-id", teamID: "team-id", topic: "topic", sandbox: "sandbox", url: "apns-url", caFile: "ca-file",
            fcmServiceAccount: "fcm-service-account", fcmURL: "fcm-url", fcmTokenURL: "fcm-token-url", fcmCAFile: "ca-file")

        /// `richpush serve`'s options (`POST /v1/pushes`).
        static let serve = Provider(
            command: "serve", key: "apns-key", keyID: "apns-key-id", teamID: "apns-team-id", topic: "apns-topic", sandbox: "apns-sandbox",
            url: "apns-url", caFile: "apns-ca-file", fcmServiceAccount: "fcm-service-account", fcmURL: "fcm-url", fcmTokenURL: "fcm-token-url",
            fcmCAFile: "fcm-ca-file")

        /// What APNs' messages call the settings.
        var apns: APNsSettingNames {
            APNsSettingNames(key: "--" + key, keyID: "--" + keyID, teamID: "--" + teamID, topic: "--" + topic, sandbox: "--" + sandbox, url: "--" + url)
        }

        /// What the APNs transport's messages call its settings.
        var apnsTransport: TransportSettingNames {
            TransportSettingNames(caFile: "--" + caFile, url: "--" + url, certificate: "--cert", certificateKey: "--cert-key", authKey: "--" + key)
        }

        /// What the FCM transport's messages call its settings. `send` names `--apns-url` for an
        /// unreachable host whichever provider it sends through, as it always has.
        var fcmTransport: TransportSettingNames {
            TransportSettingNames(
                caFile: "--" + fcmCAFile, url: command == "send" ? "--" + url : "--" + fcmURL, certificate: "--cert", certificateKey: "--cert-key",
                authKey: "--" + key)
        }

        /// What FCM's messages call the settings.
        var fcm: FCMSettingNames { FCMSettingNames(url: "--" + fcmURL, serviceAccount: "--" + fcmServiceAccount) }
    }
}
