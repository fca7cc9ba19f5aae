// RichPushCore re-exported whole: what an extension or app needs of it (the payload model, key
// paths, vendors, media kinds and formats, receipts, outcome and reason codes) appears in this
// module's public API, and its members must be visible wherever these types are.
//
// Why whole and not declaration by declaration: a scoped re-export (`@_exported import struct
// RichPushCore.RichPushReceipt`) is written into the binary framework's `.swiftinterface` as the
// whole module ("scoped imports are not yet supported in module interfaces"), and typealiases
// here would hide the members from an app built with `MemberImportVisibility` (SE-0444). So the
// surface is curated by its names instead: a Core type an app could name itself carries the
// `RichPush` prefix (`RichPushReceipt`, `RichPushOutcome`, `RichPushReasonCode`,
// `RichPushNotificationPayload`, `RichPushNotificationContent`), and `AppNameClashTests` compiles
// an app whose own module declares the generic names beside `import RichPushNotificationService`.
// Package-internal helpers stay behind the `RichPushInternal` SPI (`Locked`).
@_exported import RichPushCore
