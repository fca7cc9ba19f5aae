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

        .target(
            name: "CMicroHTTPD",
            path: "Sources/CMicroHTTPD",
            linkerSettings: [.linkedLibrary("microhttpd")]
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),

        // MARK: Shared model (Foundation only)
        .target(name: "RichPushCore"),

        // MARK: Device side
        .target(
            name: "RichPushExtension",
            dependencies: [
                "RichPushCore",
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ]
        ),

        // MARK: Statistics side
        .target(
            name: "RichPushServer",
            dependencies: ["RichPushCore", "CMicroHTTPD", "CSQLite"]
        ),

        // MARK: Command line
        .target(
            name: "RichPushCLI",
            dependencies: ["RichPushCore", "RichPushExtension", "RichPushServer"]
        ),
        .executableTarget(name: "richpush", dependencies: ["RichPushCLI"]),

        // MARK: Tests
        .target(
            name: "RichPushTestSupport",
            dependencies: ["RichPushCore"],
            path: "Tests/RichPushTestSupport"
        ),
        .testTarget(name: "RichPushCoreTests", dependencies: ["RichPushCore", "RichPushTestSupport"]),
        .testTarget(
            name: "RichPushExtensionTests",
            dependencies: ["RichPushExtension", "RichPushTestSupport"]
        ),
        .testTarget(
            name: "RichPushServerTests",
            dependencies: ["RichPushServer", "RichPushCLI", "RichPushTestSupport"]
        ),
        .testTarget(
            name: "RichPushCLITests",
            dependencies: ["RichPushCLI", "RichPushTestSupport"]
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
