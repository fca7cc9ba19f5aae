extension ReceiptReport.Status {
    /// Not sent: this push was already reported from this installation (the seen-push store).
    public static let duplicate = ReceiptReport.Status(rawValue: "duplicate")
}
