// AttachmentCarousel.swift — pages through every attachment the service extension attached
// (RichPush attaches up to 10, in the payload's order: a media key holding a list), by swipe
// and with previous / next buttons and the page dots.
//
// Each attachment is read under its own security-scoped access (iOS's store is
// security-scoped): a picture is opened, decoded and closed; a video or a sound keeps its access
// only while its page is shown (NotificationViewController plays it). Only the page shown and
// its neighbours hold decoded pictures, so ten 10 MB photos do not take the extension's memory.
import UIKit
import UniformTypeIdentifiers
import UserNotifications

/// A paging view of a notification's attachments.
final class AttachmentCarousel: UIView, UIScrollViewDelegate {
    /// What a page shows.
    enum Kind {
        case image
        case movie
        case audio
    }

    /// One page: its attachment and what it is.
    struct Page {
        let attachment: UNNotificationAttachment
        let kind: Kind
    }

    /// The pages, in the attachments' order (only what can be shown: pictures, videos, sounds).
    let pages: [Page]
    /// Called with the page index when another page is shown (after a swipe, a button, a dot).
    var onPageChange: ((Int) -> Void)?
    /// Called with the page index when the page is tapped (a video's or a sound's play / pause:
    /// the system's button is placed for the first page only).
    var onPageTap: ((Int) -> Void)?
    /// The page shown.
    private(set) var currentPage = 0

    private let scrollView = UIScrollView()
    private let pageControl = UIPageControl()
    private let previousButton = UIButton(type: .system)
    private let nextButton = UIButton(type: .system)
    private var pageViews: [UIImageView] = []
    private let maximumPixels: CGFloat

    /// The pages a content's attachments make: each picture, video or sound, in order.
    /// - Parameter attachments: the content's attachments.
    /// - Returns: the pages.
    static func pages(of attachments: [UNNotificationAttachment]) -> [Page] {
        attachments.compactMap { attachment in
            guard let type = UTType(attachment.type) else { return nil }
            if type.conforms(to: .movie) { return Page(attachment: attachment, kind: .movie) }
            if type.conforms(to: .audio) { return Page(attachment: attachment, kind: .audio) }
            if type.conforms(to: .image) { return Page(attachment: attachment, kind: .image) }
            return nil
        }
    }

    /// Makes a carousel.
    /// - Parameters:
    ///   - pages: the pages (at least two; one is shown without a carousel).
    ///   - maximumPixels: the longest side a picture is decoded to, in pixels.
    init(pages: [Page], maximumPixels: CGFloat) {
        self.pages = pages
        self.maximumPixels = maximumPixels
        super.init(frame: .zero)
        backgroundColor = .black
        scrollView.isPagingEnabled = true
        scrollView.showsHorizontalScrollIndicator = false
        scrollView.delegate = self
        scrollView.addGestureRecognizer(UITapGestureRecognizer(target: self, action: #selector(tapped)))
        addSubview(scrollView)
        for page in pages {
            let view = UIImageView()
            view.contentMode = .scaleAspectFit
            view.clipsToBounds = true
            view.tintColor = .white
            if page.kind != .image {
                view.contentMode = .center
                view.image = UIImage(systemName: page.kind == .movie ? "play.rectangle" : "waveform")
            }
            view.isAccessibilityElement = true
            view.accessibilityLabel = page.attachment.identifier
            scrollView.addSubview(view)
            pageViews.append(view)
        }
        pageControl.numberOfPages = pages.count
        pageControl.hidesForSinglePage = true
        pageControl.addAction(UIAction { [weak self] _ in self?.show(page: self?.pageControl.currentPage ?? 0, animated: true) }, for: .valueChanged)
        addSubview(pageControl)
        for (button, symbol, label, step) in [
            (previousButton, "chevron.left.circle.fill", "Previous", -1), (nextButton, "chevron.right.circle.fill", "Next", 1),
        ] {
            button.setImage(UIImage(systemName: symbol), for: .normal)
            button.tintColor = .white
            button.accessibilityLabel = label
            button.addAction(UIAction { [weak self] _ in self.map { $0.show(page: $0.currentPage + step, animated: true) } }, for: .touchUpInside)
            addSubview(button)
        }
        update()
    }

    required init?(coder: NSCoder) { nil }

    override func layoutSubviews() {
        super.layoutSubviews()
        scrollView.frame = bounds
        scrollView.contentSize = CGSize(width: bounds.width * CGFloat(pages.count), height: bounds.height)
        for (index, view) in pageViews.enumerated() {
            view.frame = CGRect(x: bounds.width * CGFloat(index), y: 0, width: bounds.width, height: bounds.height)
        }
        scrollView.contentOffset = CGPoint(x: bounds.width * CGFloat(currentPage), y: 0)
        let side: CGFloat = 36
        previousButton.frame = CGRect(x: 8, y: bounds.midY - side / 2, width: side, height: side)
        nextButton.frame = CGRect(x: bounds.width - side - 8, y: bounds.midY - side / 2, width: side, height: side)
        pageControl.frame = CGRect(x: 0, y: bounds.height - 28, width: bounds.width, height: 24)
    }

    /// Shows a page (clamped to the pages there are).
    /// - Parameters:
    ///   - page: the page index.
    ///   - animated: whether it slides.
    func show(page: Int, animated: Bool) {
        let target = min(max(page, 0), pages.count - 1)
        scrollView.setContentOffset(CGPoint(x: bounds.width * CGFloat(target), y: 0), animated: animated)
        if !animated || bounds.width == 0 { settle(on: target) }
    }

    /// The view of a page (where a video's layer goes).
    /// - Parameter index: the page index.
    /// - Returns: its view.
    func pageView(_ index: Int) -> UIView { pageViews[index] }

    /// The aspect ratio (height / width) of the first picture, to size the view; `nil` when the
    /// first page is not a picture or cannot be read.
    func firstPictureAspect() -> CGFloat? {
        guard let image = pageViews.first?.image, pages.first?.kind == .image, image.size.width > 0 else { return nil }
        return image.size.height / image.size.width
    }

    @objc private func tapped() {
        onPageTap?(currentPage)
    }

    // MARK: UIScrollViewDelegate

    func scrollViewDidEndDecelerating(_ scrollView: UIScrollView) {
        settle(on: page(at: scrollView.contentOffset.x))
    }

    func scrollViewDidEndScrollingAnimation(_ scrollView: UIScrollView) {
        settle(on: page(at: scrollView.contentOffset.x))
    }

    // MARK: Pages

    private func page(at offset: CGFloat) -> Int {
        guard bounds.width > 0 else { return currentPage }
        return min(max(Int((offset / bounds.width).rounded()), 0), pages.count - 1)
    }

    private func settle(on page: Int) {
        let changed = page != currentPage
        currentPage = page
        update()
        if changed { onPageChange?(page) }
    }

    /// Decodes the pictures of the page shown and its neighbours (each under its own access) and
    /// lets go of the others; updates the dots and the buttons.
    private func update() {
        for (index, page) in pages.enumerated() where page.kind == .image {
            if abs(index - currentPage) <= 1 {
                if pageViews[index].image == nil {
                    pageViews[index].image = AttachmentImage.decodeScoped(page.attachment.url, maximumPixels: maximumPixels)
                }
            } else {
                pageViews[index].image = nil
            }
        }
        pageControl.currentPage = currentPage
        previousButton.isHidden = currentPage == 0
        nextButton.isHidden = currentPage == pages.count - 1
    }
}
