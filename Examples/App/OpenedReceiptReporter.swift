// OpenedReceiptReporter.swift — tells the stats server that the user opened a notification.
//
// The same receipt format the extension posts for `delivered` (ARCHITECTURE.md "The receipt"):
// `application/x-www-form-urlencoded`, `push_id` first, here with `event=opened`:
//     push_id=2018001&event=opened
// A simple server like article 000's reads `push_id`; the RichPush stats server also reads `event`.
import Foundation
import RichPushCore

/// Posts `event=opened` receipts.
struct OpenedReceiptReporter: Sendable {
    /// The receipts URL; `nil` turns reporting off.
    let receiptsURL: URL?
    /// Where the push id is in the payload: the same key paths the extension uses by default.
    var pushIDKeyPaths: [PayloadKeyPath] = PayloadKeyPath.defaultPushIDKeyPaths

    /// Reports that the notification with this payload was opened.
    ///
    /// Does nothing when there is no receipts URL or the payload has no push id. Never throws:
    /// a lost `opened` receipt must not disturb the app.
    /// - Parameter userInfo: the notification's payload (`content.userInfo`).
    func reportOpened(userInfo: [AnyHashable: Any]) async {
        guard let receiptsURL, let payload = JSONValue(any: userInfo) else { return }
        var pushID: String?
        for path in pushIDKeyPaths {
            if let value = path.string(in: payload), !value.isEmpty {
                pushID = value
                break
            }
        }
        guard let pushID else { return }

        var request = URLRequest(url: receiptsURL, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(Receipt(pushID: pushID, event: .opened).formEncoded().utf8)
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                print("RichPush: opened receipt for \(pushID) answered HTTP \(status)")
            }
        } catch {
            print("RichPush: opened receipt for \(pushID) not sent: \(error.localizedDescription)")
        }
    }
}
