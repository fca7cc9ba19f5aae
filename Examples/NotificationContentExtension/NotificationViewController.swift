// NotificationViewController.swift — a Notification Content Extension for RichPush's media.
//
// Xcode: File → New → Target → iOS → Notification Content Extension. Its Info.plist lists the
// categories RichPushServiceExtension sets when it attaches media (image, audio, video and their
// button slots image.buttons.1 … 4), so a long-press / expand on such a notification shows this
// view: the picture at full width (an animated GIF animates), a video with the system's
// play/pause button over it, or a sound with a play/pause button (article 000 puts "a UIView that
// shows the image" here; article 002 explains the two extension types; article 003 plays video
// and audio). Payload buttons show below it: they are the category's actions.
import AVFoundation
import ImageIO
import UIKit
import UniformTypeIdentifiers
import UserNotifications
import UserNotificationsUI

final class NotificationViewController: UIViewController {
    private let stack = UIStackView()
    private let mediaView = UIView()
    private let imageView = UIImageView()
    private let bodyLabel = UILabel()
    private var mediaHeight: NSLayoutConstraint?
    private var player: AVPlayer?
    private var playerLayer: AVPlayerLayer?
    private var endObserver: (any NSObjectProtocol)?
    /// The attachment being played: iOS's store is security-scoped, so access stays open while it plays.
    private var scopedURL: URL?

    override func viewDidLoad() {
        super.viewDidLoad()
        imageView.contentMode = .scaleAspectFit
        imageView.clipsToBounds = true
        imageView.translatesAutoresizingMaskIntoConstraints = false
        mediaView.backgroundColor = .black
        mediaView.addSubview(imageView)
        bodyLabel.numberOfLines = 0
        bodyLabel.font = .preferredFont(forTextStyle: .body)

        stack.addArrangedSubview(mediaView)
        stack.addArrangedSubview(bodyLabel)
        stack.axis = .vertical
        stack.spacing = 8
        stack.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(stack)
        let height = mediaView.heightAnchor.constraint(equalTo: mediaView.widthAnchor, multiplier: 0.75)
        mediaHeight = height
        NSLayoutConstraint.activate([
            stack.leadingAnchor.constraint(equalTo: view.leadingAnchor),
            stack.trailingAnchor.constraint(equalTo: view.trailingAnchor),
            stack.topAnchor.constraint(equalTo: view.topAnchor),
            stack.bottomAnchor.constraint(lessThanOrEqualTo: view.bottomAnchor, constant: -8),
            height,
            imageView.leadingAnchor.constraint(equalTo: mediaView.leadingAnchor),
            imageView.trailingAnchor.constraint(equalTo: mediaView.trailingAnchor),
            imageView.topAnchor.constraint(equalTo: mediaView.topAnchor),
            imageView.bottomAnchor.constraint(equalTo: mediaView.bottomAnchor),
        ])
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        playerLayer?.frame = mediaView.bounds
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        stopMedia()
    }

    // MARK: Showing the media

    /// Shows the first attachment by its UTType: image, movie or audio.
    private func show(_ content: UNNotificationContent) {
        stopMedia()
        bodyLabel.text = content.body
        // The service extension attached the media; iOS moved it into its own store.
        guard let attachment = content.attachments.first, let type = UTType(attachment.type) else {
            setMediaAspect(nil)
            return
        }
        if type.conforms(to: .movie) {
            play(attachment.url, video: true)
            setMediaAspect(9.0 / 16.0)
        } else if type.conforms(to: .audio) {
            play(attachment.url, video: false)
            imageView.image = UIImage(systemName: "waveform")
            imageView.tintColor = .white
            imageView.contentMode = .center
            setMediaAspect(9.0 / 16.0)
        } else if type.conforms(to: .image) {
            // Files in iOS's store are security-scoped: open the scope, read, close it.
            let url = attachment.url
            let scoped = url.startAccessingSecurityScopedResource()
            defer { if scoped { url.stopAccessingSecurityScopedResource() } }
            let maximumPixels = max(view.bounds.width, 320) * view.traitCollection.displayScale
            guard let image = Self.image(at: url, maximumPixels: maximumPixels) else {
                setMediaAspect(nil)
                return
            }
            imageView.contentMode = .scaleAspectFit
            imageView.image = image
            setMediaAspect(image.size.height / max(image.size.width, 1))
        } else {
            setMediaAspect(nil)
        }
    }

    /// Sizes the media view (`nil`: no media, collapse it) and the extension's height.
    private func setMediaAspect(_ ratio: CGFloat?) {
        mediaView.isHidden = ratio == nil
        mediaHeight?.isActive = false
        let height = mediaView.heightAnchor.constraint(equalTo: mediaView.widthAnchor, multiplier: ratio ?? 0)
        height.isActive = true
        mediaHeight = height
        let width = view.bounds.width
        let text = bodyLabel.sizeThatFits(CGSize(width: width, height: .greatestFiniteMagnitude)).height
        preferredContentSize = CGSize(width: width, height: width * (ratio ?? 0) + text + 16)
    }

    /// Plays a movie in an `AVPlayerLayer`, or a sound, when the system's play/pause button asks.
    private func play(_ url: URL, video: Bool) {
        scopedURL = url.startAccessingSecurityScopedResource() ? url : nil
        let item = AVPlayerItem(url: url)
        let player = AVPlayer(playerItem: item)
        self.player = player
        if video {
            let layer = AVPlayerLayer(player: player)
            layer.videoGravity = .resizeAspect
            layer.frame = mediaView.bounds
            mediaView.layer.addSublayer(layer)
            playerLayer = layer
            imageView.image = nil
        }
        // At the end: back to the start, and tell the system the button shows "play" again.
        endObserver = NotificationCenter.default.addObserver(forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: .main) {
            [weak self] _ in
            Task { @MainActor in self?.playbackEnded() }
        }
    }

    private func playbackEnded() {
        player?.seek(to: .zero)
        extensionContext?.mediaPlayingPaused()
    }

    private func stopMedia() {
        player?.pause()
        player = nil
        playerLayer?.removeFromSuperlayer()
        playerLayer = nil
        if let endObserver { NotificationCenter.default.removeObserver(endObserver) }
        endObserver = nil
        scopedURL?.stopAccessingSecurityScopedResource()
        scopedURL = nil
        imageView.image = nil
    }

    /// The most pixels a picture may declare before anything is decoded: RichPush's bound,
    /// 8192 × 8192 (`MediaIntegrity.maximumPixels`; 256 MB decoded at 4 bytes a pixel). A 545-byte
    /// PNG can declare 60000 × 60000; its header is all that is read.
    private static let maximumSourcePixels = 8192 * 8192
    /// The most memory the decoded frames of an animation may take together: 16 MB, of the
    /// ~24 MB an extension may hold. 200 GIF frames at 1170 px would be about 1.1 GB.
    private static let frameMemoryBudget = 16 * 1024 * 1024
    /// The most frames shown of an animation, whatever their size.
    private static let maximumFrames = 200

    /// The picture at most `maximumPixels` wide or high, decoded through ImageIO's thumbnail API
    /// (it decodes no more than that, so a 10 MB photo does not take the extension's memory);
    /// an animated GIF's frames up to `frameMemoryBudget`. `nil` for a picture that declares
    /// more than `maximumSourcePixels` (a pixel flood) or cannot be read.
    private static func image(at url: URL, maximumPixels: CGFloat) -> UIImage? {
        guard let source = CGImageSourceCreateWithURL(url as CFURL, [kCGImageSourceShouldCache: false] as CFDictionary) else { return nil }
        // The declared size comes from the header: nothing is decoded yet.
        guard let header = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
            let width = header[kCGImagePropertyPixelWidth] as? Int, let height = header[kCGImagePropertyPixelHeight] as? Int,
            width > 0, height > 0
        else { return nil }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maximumSourcePixels else { return nil }
        let side = min(maximumPixels, CGFloat(max(width, height)))
        let scale = side / CGFloat(max(width, height))
        let frameBytes = max(1, Int((CGFloat(width) * scale).rounded(.up)) * Int((CGFloat(height) * scale).rounded(.up)) * 4)
        let options =
            [
                kCGImageSourceCreateThumbnailFromImageAlways: true,
                kCGImageSourceCreateThumbnailWithTransform: true,
                kCGImageSourceShouldCacheImmediately: true,
                kCGImageSourceThumbnailMaxPixelSize: side,
            ] as CFDictionary
        let count = CGImageSourceGetCount(source)
        guard count > 1 else {
            return CGImageSourceCreateThumbnailAtIndex(source, 0, options).map { UIImage(cgImage: $0) }
        }
        let frameCount = max(1, min(count, maximumFrames, frameMemoryBudget / frameBytes))
        var frames: [UIImage] = []
        var duration = 0.0
        for index in 0..<frameCount {
            guard let frame = CGImageSourceCreateThumbnailAtIndex(source, index, options) else { continue }
            frames.append(UIImage(cgImage: frame))
            let properties = CGImageSourceCopyPropertiesAtIndex(source, index, nil) as? [CFString: Any]
            let gif = properties?[kCGImagePropertyGIFDictionary] as? [CFString: Any]
            let delay = (gif?[kCGImagePropertyGIFUnclampedDelayTime] as? Double) ?? (gif?[kCGImagePropertyGIFDelayTime] as? Double) ?? 0.1
            duration += delay < 0.02 ? 0.1 : delay  // as browsers do for 0 / 10 ms delays
        }
        return UIImage.animatedImage(with: frames, duration: duration)
    }
}

// `@preconcurrency`: iOS calls these on the main thread. The iOS 16 SDK declares none of them
// main-actor isolated, newer SDKs only didReceive(_:); this conformance compiles with both and
// checks at run time that the call is on the main actor.
extension NotificationViewController: @preconcurrency UNNotificationContentExtension {
    /// Called on the main thread for the notification (and again for newer ones in the same thread).
    func didReceive(_ notification: UNNotification) {
        show(notification.request.content)
    }

    /// The system's play/pause button: over the video, or a plain one for a sound; none for a picture.
    var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType {
        guard player != nil else { return .none }
        return playerLayer == nil ? .default : .overlay
    }

    /// Where the system draws the button: the middle of the media, in this view's coordinates.
    var mediaPlayPauseButtonFrame: CGRect {
        let media = mediaView.convert(mediaView.bounds, to: view)
        let side: CGFloat = 50
        return CGRect(x: media.midX - side / 2, y: media.midY - side / 2, width: side, height: side)
    }

    var mediaPlayPauseButtonTintColor: UIColor { .white }

    func mediaPlay() {
        player?.play()
    }

    func mediaPause() {
        player?.pause()
    }
}
