// One import for an app extension: the bridge, the pipeline types (RichPushConfiguration,
// RichPushResult) and RichPushCore (see RichPushExtension's Exports.swift for why RichPushCore is
// re-exported whole and how its names are kept from clashing with an app's).
@_exported import RichPushExtension
