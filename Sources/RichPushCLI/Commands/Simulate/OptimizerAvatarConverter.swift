import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushMedia

/// The avatar converter `richpush simulate` gives the extension on Linux, where ImageIO does not
/// exist: libvips through `MediaOptimizer` (a JPEG at most `maximumSide` pixels within the byte
/// budget; a JPEG, PNG or GIF already within both is kept), playing the part iOS's ImageIO plays.
struct OptimizerAvatarConverter: AvatarConverter {
    func convert(_ file: URL, format: RichPushMediaFormat, maximumSide: Int, maximumBytes: Int) throws -> (data: Data, format: RichPushMediaFormat) {
        var settings = MediaOptimizer.Settings()
        settings.maximumSide = maximumSide
        settings.maximumBytes = maximumBytes
        let output = file.deletingLastPathComponent().appendingPathComponent("converted-" + UUID().uuidString.lowercased())
        defer { try? FileManager.default.removeItem(at: output) }
        do {
            let result = try MediaOptimizer(settings: settings).optimize(file, to: output)
            return (try Data(contentsOf: output), result.outputFormat)
        } catch let error as MediaOptimizeError {
            throw AvatarFailure(error.code == .tooLarge ? .tooLarge : .unsupportedFormat, error.message)
        }
    }
}
