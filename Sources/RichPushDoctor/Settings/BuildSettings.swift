import Foundation

/// The build settings of one target in one configuration, as levels Xcode stacks them, and the
/// expansion of `$(NAME)` / `${NAME}` references in them.
///
/// Levels, lowest first: Xcode's defaults the checks need (`TARGET_NAME`, `PRODUCT_NAME` =
/// `$(TARGET_NAME)`, `PRODUCT_MODULE_NAME` = `$(PRODUCT_NAME:c99extidentifier)`, `SRCROOT`, …),
/// the project configuration's `.xcconfig` (one level per line, so `$(inherited)` in a line sees
/// the lines and includes before it), the project configuration's `buildSettings`, the target
/// configuration's `.xcconfig`, the target configuration's `buildSettings`. In a level, an
/// assignment whose conditions (`[sdk=iphoneos*]`) hold beats one with fewer conditions.
///
/// `$(inherited)` is the same setting one level down; `$(NAME:modifier)` understands `lower`,
/// `upper`, `rfc1034identifier`, `c99extidentifier`, `identifier`, `base`, `file`, `dir`,
/// `suffix`, `standardizepath`, `quote` and `default=…` (chained: `$(A:lower:rfc1034identifier)`).
/// A setting set nowhere, an unknown modifier or a cycle makes the value `.unresolved` with the
/// reason; nothing is guessed.
public struct BuildSettings: Sendable {
    /// Expansion stops past this depth of nested references (a guard against runaway values).
    public static let maximumDepth = 64

    /// The levels, lowest first.
    public let levels: [[BuildSettingAssignment]]
    /// The build context conditions are matched against (`sdk`, `config`, `arch`).
    public let context: [String: String]
    /// Settings the project sets only for other configurations or targets: empty here, as Xcode expands them.
    public let setElsewhere: Set<String>

    /// Makes a stack of levels.
    /// - Parameters:
    ///   - levels: the assignments of each level, lowest first.
    ///   - context: condition name → value, e.g. `["sdk": "iphoneos", "config": "Release", "arch": "arm64"]`.
    ///   - setElsewhere: settings set only for other configurations or targets (they expand to nothing).
    public init(levels: [[BuildSettingAssignment]], context: [String: String], setElsewhere: Set<String> = []) {
        self.levels = levels
        self.context = context
        self.setElsewhere = setElsewhere
    }

    /// The fully expanded value of a setting.
    /// - Parameter name: the setting name.
    /// - Returns: the value, or why it cannot be resolved.
    public func resolve(_ name: String) -> ResolvedSetting {
        resolve(name, below: levels.count, visiting: [], depth: 0)
    }

    /// Whether any level sets `name` (for the current context).
    /// - Parameter name: the setting name.
    /// - Returns: true when set.
    public func isSet(_ name: String) -> Bool {
        lookup(name, below: levels.count) != nil
    }

    /// Expands the references in a text with these settings (an Info.plist or entitlements value).
    /// - Parameter text: e.g. `$(PRODUCT_MODULE_NAME).NotificationService`.
    /// - Returns: the text with every reference expanded, or why it cannot be.
    public func expand(_ text: String) -> ResolvedSetting {
        expand(Substring(text), inherited: nil, visiting: [], depth: 0)
    }

    /// The names of settings set at any level whose name starts with `prefix` (`INFOPLIST_KEY_`).
    /// - Parameter prefix: the prefix.
    /// - Returns: the names, sorted.
    public func names(withPrefix prefix: String) -> [String] {
        Set(levels.joined().filter { $0.name.hasPrefix(prefix) && $0.applies(in: context) }.map(\.name)).sorted()
    }

    private func lookup(_ name: String, below: Int) -> (level: Int, assignment: BuildSettingAssignment)? {
        var level = min(below, levels.count) - 1
        while level >= 0 {
            var best: BuildSettingAssignment?
            for assignment in levels[level] where assignment.name == name && assignment.applies(in: context) {
                if let current = best, current.conditions.count > assignment.conditions.count { continue }
                best = assignment
            }
            if let best { return (level, best) }
            level -= 1
        }
        return nil
    }

    private func resolve(_ name: String, below: Int, visiting: Set<String>, depth: Int) -> ResolvedSetting {
        guard let (level, assignment) = lookup(name, below: below) else {
            // Set for another configuration or SDK only (`BUNDLE_ID_SUFFIX = .dev` in Debug): Xcode
            // expands it to nothing here. Set nowhere: it may be one of Xcode's own, so say so.
            if below >= levels.count, setElsewhere.contains(name) || levels.joined().contains(where: { $0.name == name }) { return .value("") }
            return .unresolved(reason: "\(name) is not set")
        }
        let key = "\(name)@\(level)"
        guard !visiting.contains(key), depth < Self.maximumDepth else {
            return .unresolved(reason: "\(name) refers to itself (\(assignment.origin))")
        }
        return expand(Substring(assignment.value), inherited: (name, level), visiting: visiting.union([key]), depth: depth + 1)
    }

    private func expand(_ text: Substring, inherited: (name: String, level: Int)?, visiting: Set<String>, depth: Int) -> ResolvedSetting {
        guard depth < Self.maximumDepth else { return .unresolved(reason: "references nest deeper than \(Self.maximumDepth)") }
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            guard c == "$", next < text.endIndex else {
                out.append(c)
                i = next
                continue
            }
            let opener = text[next]
            if opener == "$" {
                out.append("$")
                i = text.index(after: next)
                continue
            }
            guard opener == "(" || opener == "{" else {
                // `$NAME` (no brackets), as older projects write: the identifier that follows.
                let end = text[next...].firstIndex { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) } ?? text.endIndex
                guard end > next, !text[next].isNumber else {
                    out.append(c)
                    i = next
                    continue
                }
                let value = resolve(String(text[next..<end]), below: levels.count, visiting: visiting, depth: depth + 1)
                guard case .value(let expanded) = value else { return value }
                out += expanded
                i = end
                continue
            }
            let closer: Character = opener == "(" ? ")" : "}"
            var nesting = 0
            var j = text.index(after: next)
            var close: Substring.Index?
            while j < text.endIndex {
                if text[j] == opener {
                    nesting += 1
                } else if text[j] == closer {
                    if nesting == 0 {
                        close = j
                        break
                    }
                    nesting -= 1
                }
                j = text.index(after: j)
            }
            guard let close else { return .unresolved(reason: "\"\(text)\" has a $\(opener) that is never closed") }
            let inner = expand(text[text.index(after: next)..<close], inherited: inherited, visiting: visiting, depth: depth + 1)
            guard case .value(let reference) = inner else { return inner }
            let parts = reference.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let name = parts[0]
            var value: ResolvedSetting
            if name.isEmpty {
                value = .value("")  // `$()`: nothing (how an xcconfig writes `//` in a URL: `https:/$()/…`)
            } else if name == "inherited" {
                if let inherited, lookup(inherited.name, below: inherited.level) != nil {
                    value = resolve(inherited.name, below: inherited.level, visiting: visiting, depth: depth + 1)
                } else {
                    value = .value("")
                }
            } else {
                value = resolve(name, below: levels.count, visiting: visiting, depth: depth + 1)
            }
            for modifier in parts.dropFirst() {
                value = Self.apply(modifier, to: value)
            }
            guard case .value(let expanded) = value else { return value }
            out += expanded
            i = text.index(after: close)
        }
        return .value(out)
    }

    static func apply(_ modifier: String, to value: ResolvedSetting) -> ResolvedSetting {
        if modifier.hasPrefix("default=") {
            if case .value(let v) = value, !v.isEmpty { return value }
            return .value(String(modifier.dropFirst("default=".count)))
        }
        guard case .value(let v) = value else { return value }
        switch modifier {
        case "lower": return .value(v.lowercased())
        case "upper": return .value(v.uppercased())
        case "rfc1034identifier":
            return .value(String(v.unicodeScalars.map { Self.isASCIIAlphanumeric($0) || $0 == "-" || $0 == "." ? Character($0) : "-" }))
        case "c99extidentifier", "identifier":
            var s = String(v.unicodeScalars.map { Self.isASCIIAlphanumeric($0) || $0 == "_" ? Character($0) : "_" })
            if let first = s.unicodeScalars.first, ("0"..."9").contains(first) { s = "_" + s }
            return .value(s)
        case "base": return .value(((v as NSString).lastPathComponent as NSString).deletingPathExtension)
        case "file": return .value((v as NSString).lastPathComponent)
        case "dir": return .value((v as NSString).deletingLastPathComponent)
        case "suffix":
            let ext = (v as NSString).pathExtension
            return .value(ext.isEmpty ? "" : "." + ext)
        case "standardizepath": return .value((v as NSString).standardizingPath)
        case "quote": return .value(v.replacingOccurrences(of: " ", with: "\\ "))
        default: return .unresolved(reason: "the modifier :\(modifier) is not one RichPush understands")
        }
    }

    static func isASCIIAlphanumeric(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s)
    }
}
