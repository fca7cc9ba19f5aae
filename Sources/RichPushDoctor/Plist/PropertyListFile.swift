import Foundation

/// Reads a property-list file in any of its three formats: XML and binary (Foundation's
/// `PropertyListSerialization`), old-style ASCII (`OpenStepParser`).
public enum PropertyListFile {
    /// Files larger than this are refused rather than read (a 20-target project is ~5 MB;
    /// Info.plist and entitlements files are a few KB).
    public static let maximumBytes = 256 * 1024 * 1024

    /// Reads and parses the file at `path`.
    ///
    /// - Parameter path: the file.
    /// - Returns: the root value.
    /// - Throws: `PropertyListError` naming the file (and the line, when the text says where).
    public static func read(_ path: String) throws -> PlistValue {
        let data = try readBytes(path)
        return try parse(data, fileName: path)
    }

    /// Reads and parses the file at `path` through a project's files (only inside its folder).
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - files: the project's files.
    /// - Returns: the root value.
    /// - Throws: `PropertyListError` naming the file (and the line, when the text says where).
    public static func read(_ path: String, files: ProjectFiles) throws -> PlistValue {
        let data = try files.read(path)
        return try parse(data, fileName: path)
    }

    /// Reads a file's bytes, with errors as `PropertyListError`.
    /// - Parameter path: the file.
    /// - Returns: its bytes.
    /// - Throws: `PropertyListError` for a missing, unreadable or oversized file.
    public static func readBytes(_ path: String) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PropertyListError(file: path, line: 0, message: "no such file")
        }
        guard !isDirectory.boolValue else { throw PropertyListError(file: path, line: 0, message: "is a directory, not a file") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maximumBytes else {
            throw PropertyListError(file: path, line: 0, message: "is \(size) bytes; files over \(maximumBytes) bytes are not read")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PropertyListError(file: path, line: 0, message: "cannot be read: \(error.localizedDescription)")
        }
    }

    /// Parses property-list bytes, choosing the format from the first bytes.
    ///
    /// - Parameters:
    ///   - data: the bytes.
    ///   - fileName: the name errors are reported against.
    /// - Returns: the root value.
    /// - Throws: `PropertyListError`.
    public static func parse(_ data: Data, fileName: String) throws -> PlistValue {
        // Binary: RichPush's own reader, which keeps shared references shared and bounds what
        // they expand to (Foundation's expanded a 150-byte file to 3.7 GB and aborted).
        if data.starts(with: Array("bplist00".utf8)) {
            return try BinaryPropertyList.parse(data, fileName: fileName)
        }
        let isBinary = data.starts(with: Array("bplist".utf8))
        if isBinary || looksLikeXML(data) {
            let kind = isBinary ? "binary" : "XML"
            do {
                var format = PropertyListSerialization.PropertyListFormat.openStep
                let object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
                // CoreFoundation falls back to other formats: a broken binary plist can come back as an
                // old-style string. Only the format the file announces counts.
                guard format == (isBinary ? .binary : .xml) else {
                    throw PropertyListError(
                        file: fileName, line: 0, message: "is not a valid \(kind) property list (it starts like one but does not parse as one)")
                }
                guard let value = PlistValue(foundation: object) else {
                    throw PropertyListError(file: fileName, line: 0, message: "holds a value that is not a property-list type")
                }
                return value
            } catch let error as PropertyListError {
                throw error
            } catch {
                throw PropertyListError(
                    file: fileName, line: lineNumber(in: "\(error)"), message: "is not a valid \(kind) property list (\(shortReason(error)))")
            }
        }
        return try OpenStepParser(fileName: fileName).parse(data)
    }

    static func looksLikeXML(_ data: Data) -> Bool {
        var prefix = data.prefix(64)
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { prefix = prefix.dropFirst(3) }
        let trimmed = prefix.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return trimmed.starts(with: Array("<?xml".utf8)) || trimmed.starts(with: Array("<plist".utf8))
            || trimmed.starts(with: Array("<!DOCTYPE".utf8))
    }

    /// The number after "line " in a parser's message, or 0.
    static func lineNumber(in text: String) -> Int {
        guard let range = text.range(of: "line ") else { return 0 }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return Int(digits) ?? 0
    }

    static func shortReason(_ error: any Error) -> String {
        let ns = error as NSError
        if let debug = ns.userInfo["NSDebugDescription"] as? String { return debug }
        return ns.localizedDescription
    }
}
