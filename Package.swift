// swift-tools-version: 6.0
import PackageDescription

// RichPush: rich iOS push notifications, end to end.
// Targets are split by the weight of their dependencies (see ARCHITECTURE in README):
// the extension side (Core, Extension, the UserNotifications bridge) never links anything
// server-side; Tests/RichPushLinkageTests proves it.

let package = Package(
    name: "RichPush",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "RichPushCore", targets: ["RichPushCore"]),
        .library(name: "RichPushExtension", targets: ["RichPushExtension"]),
        // The one product an app's Notification Service Extension adds (see Examples/).
        .library(name: "RichPushNotificationService", targets: ["RichPushNotificationService"]),
        .library(name: "RichPushProvider", targets: ["RichPushProvider"]),
        .library(name: "RichPushServer", targets: ["RichPushServer"]),
        .executable(name: "richpush", targets: ["richpush"]),
    ],
    targets: [
        // MARK: C shims over Debian -dev packages
        .target(
            name: "CCurl",
            path: "Sources/CCurl",
            linkerSettings: [.linkedLibrary("curl", .when(platforms: [.linux]))]
        ),
        // libcrypto (Debian: libssl-dev) where CryptoKit is missing: AES-256-GCM and SHA-256 (extension),
        // ES256 / RS256 JWT signing (provider).
        .systemLibrary(
            name: "COpenSSL",
            path: "Sources/COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),

        // libnghttp2 (Debian: libnghttp2-dev) + libssl: the provider's own HTTP/2 client for APNs and
        // FCM (Sources/RichPushProvider/HTTP2, issue 27), on one epoll thread.
        .systemLibrary(
            name: "CNGHTTP2",
            path: "Sources/CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev", "libssl-dev"])]
        ),
        .target(
            name: "CMicroHTTPD",
            path: "Sources/CMicroHTTPD",
            linkerSettings: [.linkedLibrary("microhttpd")]
        ),
        // libvips (Debian: libvips-dev): the provider-side media optimiser (issue 19). Never linked
        // into the extension side (RichPushLinkageTests).
        .systemLibrary(
            name: "CVips",
            path: "Sources/CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // libpq (Debian: libpq-dev): the PostgreSQL store behind several `richpush serve` (issue 9).
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),

        // MARK: Shared model (Foundation only)
        .target(name: "RichPushCore"),

        // MARK: Device side
        .target(
            name: "RichPushExtension",
            dependencies: [
                "RichPushCore",
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
            ]
        ),

        // MARK: UserNotifications bridge (issue 3)
        // Apple's UserNotifications slice for platforms without it (every file is
        // `#if !canImport(UserNotifications)`), so the bridge is one source file for both.
        .target(name: "UserNotificationsStandIn", dependencies: ["RichPushCore"]),
        // Apple's Intents slice for communication notifications (issue 30): INPerson, INImage,
        // INSendMessageIntent, INInteraction; every file is `#if !canImport(Intents)`.
        .target(name: "IntentsStandIn", dependencies: ["UserNotificationsStandIn", "RichPushCore"]),
        // Plays the iOS side on Linux: budget, expiry, attachment store, peak memory, intents.
        .target(name: "RichPushExtensionHost", dependencies: ["UserNotificationsStandIn", "IntentsStandIn", "RichPushCore"]),
        .target(
            name: "RichPushNotificationService",
            dependencies: [
                "RichPushExtension",
                .target(name: "UserNotificationsStandIn", condition: .when(platforms: [.linux])),
                .target(name: "IntentsStandIn", condition: .when(platforms: [.linux])),
            ]
        ),
        // A tiny extension-side executable whose linkage RichPushLinkageTests inspects.
        .executableTarget(name: "RichPushLinkageProbe", dependencies: ["RichPushNotificationService"]),
        // MARK: Provider side (APNs over HTTP/2 with our nghttp2 client, JWT with OpenSSL / CryptoKit, FCM v1)
        .target(
            name: "RichPushProvider",
            dependencies: [
                "RichPushCore",
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                .target(name: "CNGHTTP2", condition: .when(platforms: [.linux])),
            ]
        ),

        // MARK: Provider-side media: the probe (the extension's own fetch rules + no SSRF) and the
        // libvips optimiser (issue 19)
        .target(
            name: "RichPushMedia",
            dependencies: [
                "RichPushCore", "RichPushExtension",
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
                "CVips",
            ]
        ),

        // MARK: Statistics side (POST /v1/pushes sends through RichPushProvider's APNs client)
        .target(
            name: "RichPushServer",
            dependencies: [
                "RichPushCore", "CMicroHTTPD", "CSQLite", "CLibPQ", "RichPushProvider", "RichPushMedia",
                // SHA-256 of an Idempotency-Key request's canonical body; the media edge names files by SHA-256 (issue 19)
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                // webhook deliveries: one libcurl client per endpoint (issue 29)
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ],
            // GET /openapi.yaml: the repository's openapi.yaml (a symlink in the target), compiled in.
            resources: [.embedInCode("OpenAPI/openapi.yaml")]
        ),

        // MARK: Project doctor (issue 20): pbxproj / plist / xcconfig reading and the checks (Foundation
        // only), and RichPushMedia's probe for `--probe`
        .target(name: "RichPushDoctor", dependencies: ["RichPushCore", "RichPushMedia"]),

        // MARK: Command line
        .target(
            name: "RichPushCLI",
            dependencies: [
                "RichPushCore", "RichPushExtension", "RichPushProvider", "RichPushMedia",
                // simulate runs the real RichPushNotificationService in the Linux host (issue 3)
                "RichPushNotificationService",
                .target(name: "RichPushExtensionHost", condition: .when(platforms: [.linux])),
                "RichPushServer",
                "RichPushDoctor",
            ]
        ),
        .executableTarget(name: "richpush", dependencies: ["RichPushCLI"]),

        // MARK: Tests
        .target(
            name: "RichPushTestSupport",
            // CLibPQ: the throwaway PostgreSQL cluster makes a fresh database per test.
            dependencies: ["RichPushCore", "CLibPQ"],
            path: "Tests/RichPushTestSupport"
        ),
        .testTarget(name: "RichPushCoreTests", dependencies: ["RichPushCore", "RichPushTestSupport"]),
        // A tiny executable the extension-depth tests run as several processes at once
        // (badge counter, media cache, receipt queue under flock).
        .executableTarget(
            name: "richpush-depth-helper",
            dependencies: ["RichPushExtension"],
            path: "Tests/RichPushDepthHelper"
        ),
        // benchmarks/media-optimize.sh: conversions per second through the media worker pool
        // against in process (issue 28).
        .executableTarget(
            name: "richpush-media-bench",
            dependencies: ["RichPushMedia"],
            path: "benchmarks/MediaWorkerBench"
        ),
        .testTarget(
            name: "RichPushExtensionTests",
            dependencies: ["RichPushExtension", "RichPushTestSupport", "richpush-depth-helper"]
        ),
        .testTarget(
            name: "RichPushNotificationServiceTests",
            dependencies: [
                "RichPushNotificationService", "RichPushExtensionHost", "UserNotificationsStandIn", "IntentsStandIn",
                "RichPushTestSupport",
            ]
        ),
        .testTarget(
            name: "RichPushLinkageTests",
            dependencies: ["RichPushLinkageProbe", "RichPushTestSupport"]
        ),
        .testTarget(
            name: "RichPushProviderTests",
            dependencies: ["RichPushProvider", "RichPushTestSupport"]
        ),
        .testTarget(
            name: "RichPushServerTests",
            dependencies: ["RichPushServer", "RichPushCLI", "RichPushTestSupport"]
        ),
        .testTarget(name: "RichPushDoctorTests", dependencies: ["RichPushDoctor", "RichPushTestSupport", "richpush"]),
        .testTarget(
            name: "RichPushMediaTests",
            // "richpush": the table test runs `richpush simulate` beside the probe; RichPushDoctor: doctor --probe.
            dependencies: ["RichPushMedia", "RichPushDoctor", "RichPushTestSupport", "richpush"]
        ),
        .testTarget(
            name: "RichPushCLITests",
            // "richpush": so the binary the tests run is built first.
            dependencies: ["RichPushCLI", "RichPushTestSupport", "richpush"]
        ),
    ]
)

// One loop of strict settings for every target (as swift-log does).
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
