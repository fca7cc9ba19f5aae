import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

/// Checks the device a per-device receipt names: the `device_mac` must be the HMAC-SHA256 of the
/// receipt (`RichPushReceipt.deviceMessage`) under that device's secret, so only the device
/// (whose app saved the secret from `POST /v1/devices`) can name itself; nobody can attribute a
/// receipt to another device by its id, and the token is never sent.
///
/// Secrets are cached (bounded, oldest out first, each for 5 minutes) so the receipts' hot path
/// reads the store once per device and 5 minutes, and unknown ids are remembered for a minute so a flood of made-up
/// ids costs one indexed read each at most once a minute. A receipt whose reference does not
/// verify (unknown device — erased or never registered —, wrong MAC, a store without devices) is
/// stored anonymously, as every receipt was before: counted, never lost, never attributed.
final class ReceiptDeviceVerifier: Sendable {
    /// What a check found.
    enum Verdict: Sendable, Equatable {
        /// The receipt names this device (its id).
        case verified(String)
        /// No reference in the receipt.
        case anonymous
        /// A reference that does not verify: stored anonymously.
        case unverified
    }

    /// The most device secrets cached.
    static let capacity = 100_000
    /// How long an unknown device id is remembered, ms.
    static let unknownTTLMs = 60_000
    /// How long a known device's secret is used without reading it again, ms (an erasure or an
    /// unregistration on another instance reaches this one within it).
    static let knownTTLMs = 300_000

    private struct Entry {
        var secret: Data?
        var atMs: Int
    }

    private let cache = Locked<[String: Entry]>([:])

    /// Makes a verifier with an empty cache.
    init() {}

    /// Checks `receipt`'s reference.
    ///
    /// - Parameters:
    ///   - receipt: the decoded receipt.
    ///   - context: the server's store and lanes.
    /// - Returns: the verdict.
    func check(_ receipt: RichPushReceipt, context: ServerContext) async -> Verdict {
        guard let id = receipt.deviceID, let macHex = receipt.deviceMAC, let mac = RegisterDeviceEndpoint.bytes(hex: macHex) else { return .anonymous }
        let nowMs = ServerContext.nowMs
        var secret: Data?
        if let entry = cache.withLock({ $0[id] }), nowMs - entry.atMs < (entry.secret == nil ? Self.unknownTTLMs : Self.knownTTLMs) {
            secret = entry.secret
        } else {
            let store = context.store
            let credential: DeviceCredential?
            do {
                credential = try await context.lanes.run(.read) { try store.recipientStore().deviceCredential(deviceID: id) }
            } catch {
                // A store that keeps no devices, or cannot be read now: anonymous, not remembered.
                return .unverified
            }
            secret = credential.flatMap { RegisterDeviceEndpoint.bytes(hex: $0.secret) }
            remember(id, secret: secret, nowMs: nowMs)
        }
        guard let secret, HMACSHA256.verify(mac, message: receipt.deviceMessage, key: secret) else { return .unverified }
        return .verified(id)
    }

    /// Forgets every cached secret (after an erasure or an unregistration on this instance).
    func forgetAll() {
        cache.withLock { $0.removeAll() }
    }

    private func remember(_ id: String, secret: Data?, nowMs: Int) {
        cache.withLock { cache in
            if cache.count >= Self.capacity {
                // Out go the oldest tenth (least recently looked up), in one pass.
                let cut = cache.sorted { $0.value.atMs < $1.value.atMs }.prefix(Self.capacity / 10).map(\.key)
                for key in cut { cache[key] = nil }
            }
            cache[id] = Entry(secret: secret, atMs: nowMs)
        }
    }
}
