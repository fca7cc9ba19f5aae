extension RichPushReceiptReport.Status {
    /// Not sent: this push was already reported from this installation (the seen-push store).
    public static let duplicate = RichPushReceiptReport.Status(rawValue: "duplicate")
}
