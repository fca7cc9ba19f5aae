#if !canImport(Intents)
import Foundation
@_spi(RichPushInternal) internal import RichPushCore

/// Stand-in for Apple's `INInteraction`: an intent that happened, donated to the system.
///
/// Donations are kept in memory for the Linux host (`INInteraction.donated`); the host can make
/// them fail (`INInteraction.donationFailure`) to play a system that refuses them.
open class INInteraction: NSObject, NSCopying {
    private let storedIntent: INIntent
    private let storedResponse: INIntentResponse?
    private var storedDirection = INInteractionDirection.unspecified
    private var storedIdentifier = UUID().uuidString

    /// An interaction.
    /// - Parameters:
    ///   - intent: what happened.
    ///   - response: the response, `nil` for none.
    public init(intent: INIntent, response: INIntentResponse?) {
        storedIntent = intent
        storedResponse = response
        super.init()
    }

    /// What happened.
    open var intent: INIntent { storedIntent }
    /// The response.
    open var intentResponse: INIntentResponse? { storedResponse }
    /// Whether the user sent or received it.
    open var direction: INInteractionDirection {
        get { storedDirection }
        set { storedDirection = newValue }
    }
    /// The interaction's identifier.
    open var identifier: String {
        get { storedIdentifier }
        set { storedIdentifier = newValue }
    }

    /// Donates the interaction to the system.
    /// - Parameter completion: called with `nil`, or the error when the system refused it.
    open func donate(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        let failure = Self.record(self)
        DispatchQueue.global().async { completion?(failure) }
    }

    /// Donates the interaction to the system.
    /// - Throws: the system's error when it refused it.
    open func donate() async throws {
        if let failure = Self.record(self) { throw failure }
    }

    /// Returns the receiver.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    // MARK: The Linux host's view

    /// What every donation so far was, and the error the next donations get.
    private struct Donations: Sendable {
        var failure: StandInDonationError?
        var count = 0
    }

    private static let donations = Locked(Donations())

    /// Records a donation; returns the error the host set, if any.
    private static func record(_ interaction: INInteraction) -> (any Error)? {
        donations.withLock { d in
            if let failure = d.failure { return failure }
            d.count += 1
            return nil
        }
    }

    /// Donations accepted so far in this process (for the Linux host).
    package static var donatedCount: Int { donations.withLock { $0.count } }

    /// Makes every later donation fail with this message (`nil`: succeed), as a system that
    /// refuses them would (for the Linux host's fault injection).
    package static func setDonationFailure(_ message: String?) {
        donations.withLock { $0.failure = message.map(StandInDonationError.init) }
    }
}

/// The error of a donation the Linux host made fail.
struct StandInDonationError: Error, Sendable, CustomStringConvertible {
    let message: String
    var description: String { message }
}
#endif
