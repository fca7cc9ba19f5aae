// NotificationViewController.swift — a Notification Content Extension for RichPush's media.
//
// Xcode: File → New → Target → iOS → Notification Content Extension. Its Info.plist lists the
// categories RichPushServiceExtension sets when it attaches media (image, audio, video and their
// button slots image.buttons.1 … 4), so a long-press / expand on such a notification shows this
// view: the picture at full width (an animated GIF animates), a video with the system's
// play/pause button over it, or a sound with a play/pause button (article 000 puts "a UIView that
// shows the image" here; article 002 explains the two extension types; article 003 plays video
// and audio). Payload buttons show below it: they are the category's actions.
//
// Several attachments (a media key holding a list: RichPush attaches up to 10, in order): a
// carousel pages through all of them, by swipe or with its buttons and dots
// (AttachmentCarousel.swift); one attachment is shown alone, as before. The Info.plist's
// UNNotificationExtensionUserInteractionEnabled lets the view take the swipes and taps; a tap on
// the text opens the app (performNotificationDefaultAction()).
import AVFoundation
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
    /// The carousel, when the notification has several attachments.
    private var carousel: AttachmentCarousel?

    override func viewDidLoad() {
        super.viewDidLoad()
        imageView.contentMode = .scaleAspectFit
        imageView.clipsToBounds = true
        imageView.translatesAutoresizingMaskIntoConstraints = false
        mediaView.backgroundColor = .black
        mediaView.addSubview(imageView)
        bodyLabel.numberOfLines = 0
        bodyLabel.font = .preferredFont(forTextStyle: .body)
        // User interaction is on (for the carousel): a tap on the text opens the app, as a tap on
        // the notification does.
        bodyLabel.isUserInteractionEnabled = true
        bodyLabel.addGestureRecognizer(UITapGestureRecognizer(target: self, action: #selector(openApp)))

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
        playerLayer?.frame = playerLayer?.superlayer?.bounds ?? mediaView.bounds
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        stopMedia()
    }

    @objc private func openApp() {
        extensionContext?.performNotificationDefaultAction()
    }

    // MARK: Showing the media

    /// Shows the attachments: several in a carousel, one alone.
    private func show(_ content: UNNotificationContent) {
        stopMedia()
        imageView.image = nil
        carousel?.removeFromSuperview()
        carousel = nil
        bodyLabel.text = content.body
        // The service extension attached the media; iOS moved it into its own store.
        let pages = AttachmentCarousel.pages(of: content.attachments)
        guard pages.count > 1 else {
            showSingle(content)
            return
        }
        let maximumPixels = max(view.bounds.width, 320) * view.traitCollection.displayScale
        let carousel = AttachmentCarousel(pages: pages, maximumPixels: maximumPixels)
        carousel.translatesAutoresizingMaskIntoConstraints = false
        mediaView.addSubview(carousel)
        NSLayoutConstraint.activate([
            carousel.leadingAnchor.constraint(equalTo: mediaView.leadingAnchor),
            carousel.trailingAnchor.constraint(equalTo: mediaView.trailingAnchor),
            carousel.topAnchor.constraint(equalTo: mediaView.topAnchor),
            carousel.bottomAnchor.constraint(equalTo: mediaView.bottomAnchor),
        ])
        carousel.onPageChange = { [weak self] index in self?.showPage(index) }
        carousel.onPageTap = { [weak self] _ in self?.togglePlayback() }
        self.carousel = carousel
        // Sized by the first picture (a 4:3 frame when the first page is a video or a sound).
        setMediaAspect(min(max(carousel.firstPictureAspect() ?? 0.75, 0.5), 1.5))
        showPage(0)
    }

    /// A carousel page became the one shown: a video or a sound on it gets the player (and its
    /// attachment's access) until another page is shown; a picture needs nothing more.
    private func showPage(_ index: Int) {
        stopMedia()
        guard let carousel, carousel.pages.indices.contains(index) else { return }
        let page = carousel.pages[index]
        switch page.kind {
        case .movie: play(page.attachment.url, video: true, in: carousel.pageView(index))
        case .audio: play(page.attachment.url, video: false, in: carousel.pageView(index))
        case .image: break
        }
        // The system asks again where its play/pause button goes (and whether there is one).
        extensionContext?.mediaPlayingPaused()
    }

    /// Plays or pauses the carousel page's video or sound (a tap on it).
    private func togglePlayback() {
        guard let player else { return }
        if player.timeControlStatus == .playing {
            player.pause()
            extensionContext?.mediaPlayingPaused()
        } else {
            player.play()
            extensionContext?.mediaPlayingStarted()
        }
    }

    /// Shows the one attachment by its UTType: image, movie or audio.
    private func showSingle(_ content: UNNotificationContent) {
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
            let maximumPixels = max(view.bounds.width, 320) * view.traitCollection.displayScale
            guard let image = AttachmentImage.decodeScoped(attachment.url, maximumPixels: maximumPixels) else {
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

    /// Plays a movie in an `AVPlayerLayer` (over `host`: the media view, or a carousel page), or
    /// a sound, when the system's play/pause button asks.
    private func play(_ url: URL, video: Bool, in host: UIView? = nil) {
        let host = host ?? mediaView
        scopedURL = url.startAccessingSecurityScopedResource() ? url : nil
        let item = AVPlayerItem(url: url)
        let player = AVPlayer(playerItem: item)
        self.player = player
        if video {
            let layer = AVPlayerLayer(player: player)
            layer.videoGravity = .resizeAspect
            layer.frame = host.bounds
            host.layer.addSublayer(layer)
            playerLayer = layer
            if carousel == nil { imageView.image = nil }
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
