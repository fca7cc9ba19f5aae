// NotificationViewController.swift — a Notification Content Extension for category "image".
//
// Xcode: File → New → Target → iOS → Notification Content Extension. Its Info.plist names the
// category (UNNotificationExtensionCategory = image), which RichPushNotificationService sets when
// it attaches media, so a long-press / expand on such a notification shows this view with the
// picture at full width (article 000 puts "a UIView that shows the image" here; article 002
// explains the two extension types).
import UIKit
import UserNotifications
import UserNotificationsUI

final class NotificationViewController: UIViewController, UNNotificationContentExtension {
    private let imageView = UIImageView()
    private let bodyLabel = UILabel()

    override func viewDidLoad() {
        super.viewDidLoad()
        imageView.contentMode = .scaleAspectFit
        imageView.clipsToBounds = true
        bodyLabel.numberOfLines = 0
        bodyLabel.font = .preferredFont(forTextStyle: .body)

        let stack = UIStackView(arrangedSubviews: [imageView, bodyLabel])
        stack.axis = .vertical
        stack.spacing = 8
        stack.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(stack)
        NSLayoutConstraint.activate([
            stack.leadingAnchor.constraint(equalTo: view.leadingAnchor, constant: 12),
            stack.trailingAnchor.constraint(equalTo: view.trailingAnchor, constant: -12),
            stack.topAnchor.constraint(equalTo: view.topAnchor, constant: 12),
            stack.bottomAnchor.constraint(lessThanOrEqualTo: view.bottomAnchor, constant: -12),
            imageView.heightAnchor.constraint(lessThanOrEqualTo: view.widthAnchor),
        ])
    }

    /// Called on the main thread for the notification (and again for newer ones in the same thread).
    func didReceive(_ notification: UNNotification) {
        let content = notification.request.content
        bodyLabel.text = content.body

        // The service extension attached one image; iOS moved it into its own store. Files there
        // are security-scoped: open the scope, read, close it.
        guard let attachment = content.attachments.first else {
            imageView.isHidden = true
            return
        }
        let url = attachment.url
        let scoped = url.startAccessingSecurityScopedResource()
        defer { if scoped { url.stopAccessingSecurityScopedResource() } }
        if let data = try? Data(contentsOf: url), let image = UIImage(data: data) {
            imageView.image = image
            imageView.isHidden = false
            // Fit the view's height to the picture's aspect ratio.
            preferredContentSize = CGSize(
                width: view.bounds.width,
                height: view.bounds.width * image.size.height / max(image.size.width, 1) + bodyLabel.intrinsicContentSize.height + 32)
        } else {
            // Audio or video attachments: iOS shows its own player; nothing to draw here.
            imageView.isHidden = true
        }
    }
}
