/// The extension library's version, sent in the `User-Agent` header.
let richPushExtensionVersion = "0.11.0"
