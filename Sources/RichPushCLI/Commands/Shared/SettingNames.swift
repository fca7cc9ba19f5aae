import RichPushCore
import RichPushDoctor
import RichPushMedia
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

extension SettingNames {
    /// `richpush lint`'s option for `RichPushPayloadLinter.fix` (a fixable `RichPushLintFinding`).
    static let lintFix = "--fix"

    /// `richpush media optimize`'s options for `MediaOptimizer.Settings` (`MediaOptimizeError.setting`).
    static let optimizer: [String: String] = [
        "allowsImageMagick": "--allow-imagemagick", "maximumInputPixels": "--max-input-pixels", "maximumBytes": "--max-bytes",
        "allowsSVG": "--allow-svg", "maximumDecodeBytes": "--max-decode-bytes", "timeout": "--media-timeout", "memoryBytes": "--media-worker-memory",
        "workers": "--media-workers",
    ]

    /// The probe's option for `MediaAddressPolicy.allowedHosts` (`media probe`, `lint`, `send` and
    /// `doctor` `--probe`).
    static let mediaAllowHost = "--media-allow-host"

    /// What `richpush doctor`'s fixes (and `send --probe`'s) call the commands and options.
    static let doctor = DoctorSettingNames(
        lintFix: "richpush lint --fix", optimize: "richpush media optimize URL --output FILE", allowHTTPHost: "pass --allow-http-host HOST",
        allowMediaHost: "pass --media-allow-host HOST")

    /// `richpush serve`'s options for the media edge (`MediaEdgeSettings`' errors).
    static let mediaEdge: MediaEdgeSettings.Names = {
        var names = MediaEdgeSettings.Names()
        names.publicURL = "--public-url"
        names.storeBytes = "--media-store-bytes"
        names.mediaPublicURL = "--media-public-url"
        names.allowHTTP = "--media-edge-allow-http"
        return names
    }()

    /// `richpush simulate`'s options for the extension's settings (`RichPushConfiguration`'s
    /// properties, as `RichPushReceiptReport.setting` names them).
    static let simulate: [String: String] = ["receiptsURL": "--receipts-url", "allowedHTTPHosts": "--allow-http-host"]

    /// `text` with `richpush simulate`'s option for `setting` added, e.g. "… (here: --receipts-url)".
    ///
    /// - Parameters:
    ///   - text: a receipt's skip reason or error.
    ///   - setting: `RichPushReceiptReport.setting`.
    ///   - host: the receipts URL's host, for `--allow-http-host HOST`.
    /// - Returns: the text naming the option, or `text` when the setting has none.
    static func namingSimulateOption(_ text: String, setting: String?, host: String?) -> String {
        guard let setting, let option = simulate[setting] else { return text }
        return text + " (here: \(option)\(setting == "allowedHTTPHosts" ? " " + (host ?? "HOST") : ""))"
    }

    /// An optimiser error's message with `richpush media optimize`'s option for its setting added,
    /// e.g. "…; raise the byte budget (--max-bytes)".
    ///
    /// - Parameter error: a `MediaOptimizer` error.
    /// - Returns: the message naming the option, or the message when the error is about no setting.
    static func namingOptimizerSetting(_ error: MediaOptimizeError) -> String {
        guard let setting = error.setting, let option = optimizer[setting] else { return error.message }
        return error.message + " (\(option))"
    }
}
