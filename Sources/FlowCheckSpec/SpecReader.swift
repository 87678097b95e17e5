import Foundation

/// Reads parsed spec JSON and collects every problem it meets (file, line:column, JSON path and
/// a fix), so an author fixes a file in one pass. The decoder and every provider's fixture
/// decoder share one reader per file, so all problems come out in one list.
public final class SpecReader {
    /// The file named in every diagnostic.
    public let file: String
    /// Every problem found so far, in the order found, with every registered secret masked.
    public var diagnostics: [SpecDiagnostic] { found.map(masked) }
    private var found: [SpecDiagnostic] = []
    /// The fixture secrets registered so far (``secret(_:_:_:)``, ``registerSecrets(_:)``).
    public private(set) var secrets: [String] = []
    /// The texts masked: each secret raw and JSON-escaped, longest first so a secret that
    /// contains another is masked whole.
    private var needles: [String] = []
    /// Warnings found so far (severity `warning`): reported, never making the spec invalid;
    /// masked like the problems.
    public var warnings: [SpecDiagnostic] { foundWarnings.map(masked) }
    private var foundWarnings: [SpecDiagnostic] = []

    public init(file: String) {
        self.file = file
    }

    /// What stands in for a fixture secret in a diagnostic (the runner's reports use the same).
    public static let secretMask = "‹redacted›"

    /// Secrets shorter than this are not masked (masking every "ab" would wreck the message);
    /// the loader refuses them anyway (``minimumSecretLength``).
    static let shortestMaskedSecret = 4

    /// Spec text for a diagnostic: secrets masked, then quoted as a JSON string and cut
    /// (``SpecText/quoted(_:limit:)``), so a secret cannot be half shown by the cut.
    public func quoted(_ text: String) -> String {
        SpecText.quoted(mask(text))
    }

    /// Masks `secrets` in every diagnostic, reported or still to come: a spec's fixture secret
    /// written into a bad value must not reach the console or a report through its diagnostic.
    public func registerSecrets(_ secrets: [String]) {
        var all = Set(needles)
        for secret in secrets where secret.count >= Self.shortestMaskedSecret && !self.secrets.contains(secret) {
            self.secrets.append(secret)
            all.insert(secret)
            all.insert(SpecText.escaped(secret))
        }
        needles = all.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// Spec text to show unquoted (a pattern between slashes, a number): the secrets masked
    /// now, since the last pass masks only quoted spans.
    public func masked(_ text: String) -> String {
        mask(text)
    }

    private func mask(_ text: String) -> String {
        var text = text
        for secret in needles where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: Self.secretMask)
        }
        return text
    }

    private func masked(_ diagnostic: SpecDiagnostic) -> SpecDiagnostic {
        guard !needles.isEmpty else { return diagnostic }
        var copy = diagnostic
        copy.title = maskUserText(diagnostic.title)
        copy.path = maskUserText(diagnostic.path)
        copy.fix = maskUserText(diagnostic.fix)
        return copy
    }

    /// `text` with the secrets masked where they are the spec's words, never the tool's: every
    /// occurrence inside a quoted span (`"..."`, as diagnostics quote spec text; text shown
    /// unquoted is masked when the diagnostic is built, ``masked(_:)``). A secret that is a word
    /// the tool wrote ("secret" in "a secret shorter than", "short" in "shorter", a field name
    /// in the path) is left, so the sentence, the JSON path and the fix still read.
    func maskUserText(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return text }
        var quoted = [Bool](repeating: false, count: bytes.count)
        var inside = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inside, byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                quoted[index] = true
                quoted[index + 1] = true
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inside.toggle()
            } else {
                quoted[index] = inside
            }
            index += 1
        }
        var masked: [Range<Int>] = []
        for needle in needles {
            let pattern = Array(needle.utf8)
            guard !pattern.isEmpty, pattern.count <= bytes.count else { continue }
            var start = 0
            while start + pattern.count <= bytes.count {
                if bytes[start..<(start + pattern.count)].elementsEqual(pattern) {
                    let range = start..<(start + pattern.count)
                    let inQuotes = range.contains { quoted[$0] }
                    if inQuotes, !masked.contains(where: { $0.overlaps(range) }) {
                        masked.append(range)
                        start = range.upperBound
                        continue
                    }
                }
                start += 1
            }
        }
        guard !masked.isEmpty else { return text }
        masked.sort { $0.lowerBound < $1.lowerBound }
        var out: [UInt8] = []
        var copied = 0
        for range in masked {
            out += bytes[copied..<range.lowerBound]
            out += Array(Self.secretMask.utf8)
            copied = range.upperBound
        }
        out += bytes[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    /// Adds the problems another reader found (a fixture read ahead of the spec around it).
    public func append(contentsOf other: SpecReader) {
        found.append(contentsOf: other.found)
        foundWarnings.append(contentsOf: other.foundWarnings)
    }

    public func report(_ node: JSONNode, _ path: String, _ title: String, fix: String) {
        found.append(SpecDiagnostic(file: file, location: node.location, path: path, title: title, fix: fix))
    }

    public func warn(_ node: JSONNode, _ path: String, _ title: String, fix: String) {
        foundWarnings.append(SpecDiagnostic(file: file, location: node.location, path: path, title: title, fix: fix, severity: .warning))
    }

    public func report(at location: SourceLocation, _ path: String, _ title: String, fix: String) {
        found.append(SpecDiagnostic(file: file, location: location, path: path, title: title, fix: fix))
    }

    public func typeMismatch(_ node: JSONNode, _ path: String, expected: String, example: String) {
        report(node, path, "expected \(expected), found \(node.typeName)", fix: "write it as \(example)")
    }

    /// The members of an object, after reporting any key not in `allowed`. Nil if not an object.
    /// - Parameter retired: keys the format no longer has, each with why and what to write
    ///   instead: reported with that fix rather than as an unknown key.
    public func object(_ node: JSONNode, _ path: String, allowed: [String], example: String = "{ ... }", retired: [String: RetiredKey] = [:]) -> [String: JSONNode.Member]? {
        guard let members = node.members else {
            typeMismatch(node, path, expected: "an object", example: example)
            return nil
        }
        var byKey: [String: JSONNode.Member] = [:]
        for member in members {
            let memberPath = path + JSONPath.key(member.key)
            if let retired = retired[member.key] {
                report(at: member.keyLocation, memberPath, "\(quoted(member.key)) was retired: \(retired.why)", fix: retired.fix)
                continue
            }
            if !allowed.contains(member.key) {
                // A misspelt "secret" or "password" still holds one: masked like the fixture's.
                if case .string(let value) = member.value.value, Self.looksSensitive(member.key) || Suggestion.closest(to: member.key, in: allowed).map(Self.looksSensitive) == true {
                    registerSecrets([value])
                }
                report(at: member.keyLocation, memberPath, "unknown key \(quoted(member.key))", fix: Suggestion.fix(for: member.key, in: allowed, listName: "allowed keys here"))
                continue
            }
            if byKey[member.key] != nil {
                report(at: member.keyLocation, memberPath, "duplicate key \(quoted(member.key))", fix: "keep one \(quoted(member.key)) and remove the other")
                continue
            }
            byKey[member.key] = member
        }
        return byKey
    }

    public func missing(_ key: String, in node: JSONNode, _ path: String, example: String) {
        report(node, path, "missing required key \"\(key)\"", fix: "add \"\(key)\": \(example)")
    }

    public func string(_ members: [String: JSONNode.Member], _ key: String, in node: JSONNode, _ path: String, required: Bool, example: String = "\"...\"") -> String? {
        guard let member = members[key] else {
            if required { missing(key, in: node, path, example: example) }
            return nil
        }
        let memberPath = path + JSONPath.key(key)
        guard case .string(let s) = member.value.value else {
            typeMismatch(member.value, memberPath, expected: "a string", example: example)
            return nil
        }
        if s.trimmingCharacters(in: .whitespaces).isEmpty {
            report(member.value, memberPath, "empty string", fix: "give \"\(key)\" a value, e.g. \(example)")
            return nil
        }
        return s
    }

    public func integer(_ member: JSONNode.Member?, _ path: String, range: ClosedRange<Int>, example: String) -> Int? {
        guard let member else { return nil }
        guard case .number(let text) = member.value.value, let value = Int(text) ?? Self.integral(text) else {
            if case .number(let text) = member.value.value, text.allSatisfy({ $0.isNumber || $0 == "-" }) {
                report(member.value, path, "\(masked(text)) is out of range", fix: "use a number from \(range.lowerBound) to \(range.upperBound)")
            } else if case .number = member.value.value {
                report(member.value, path, "expected a whole number", fix: "write it as \(example)")
            } else {
                typeMismatch(member.value, path, expected: "a whole number", example: example)
            }
            return nil
        }
        guard range.contains(value) else {
            report(member.value, path, "\(masked(String(value))) is out of range", fix: "use a number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    public func bool(_ member: JSONNode.Member?, _ path: String) -> Bool? {
        guard let member else { return nil }
        guard case .bool(let value) = member.value.value else {
            typeMismatch(member.value, path, expected: "true or false", example: "true")
            return nil
        }
        return value
    }

    public func array(_ member: JSONNode.Member, _ path: String, example: String) -> [JSONNode]? {
        guard case .array(let items) = member.value.value else {
            typeMismatch(member.value, path, expected: "an array", example: example)
            return nil
        }
        return items
    }


    /// The elements of a required array member, each with its path.
    public func elements(_ members: [String: JSONNode.Member], _ key: String, in node: JSONNode, _ path: String, example: String) -> [(JSONNode, String)] {
        guard let member = members[key] else {
            missing(key, in: node, path, example: example)
            return []
        }
        return (array(member, path + JSONPath.key(key), example: example) ?? []).enumerated().map { ($1, path + JSONPath.key(key) + "[\($0)]") }
    }

    /// Fixture secrets are masked in every report by their text; one too short to mask without
    /// wrecking the report (a secret "ab" would hide every "ab") is refused instead.
    public static let minimumSecretLength = 8

    /// Registers a fixture secret, masked in every diagnostic of the file
    /// (``registerSecrets(_:)``), and reports one too short to mask.
    /// Whether a key names a credential (`secret`, `clientSecret`, `password`, `refreshToken`,
    /// `apiKey`...): the value of such a key that the loader cannot place is masked anyway.
    static func looksSensitive(_ key: String) -> Bool {
        let lowered = key.lowercased()
        if ["secret", "password", "passwd", "token", "key", "credential"].contains(where: { lowered.contains($0) }) { return true }
        // Misspelt: `clientSecert`, `pasword`, `acessToken`.
        return Suggestion.closest(to: lowered, in: ["secret", "clientsecret", "password", "accesstoken", "refreshtoken", "apikey"]) != nil
    }

    public func secret(_ secret: String, _ node: JSONNode, _ path: String) {
        registerSecrets([secret])
        if secret.count < Self.minimumSecretLength {
            report(node, path, "a secret shorter than \(Self.minimumSecretLength) characters cannot be masked in reports", fix: "use at least \(Self.minimumSecretLength) characters, as a real secret would have")
        }
    }

    /// `1.0` or `1e3` as a whole number: JSON Schema's `integer` (and so every editor) accepts
    /// them, so the loader does too. Nil for a fraction or a number too large for Int.
    static func integral(_ text: String) -> Int? {
        guard let double = Double(text), double.isFinite, double == double.rounded(), abs(double) < 9e15 else { return nil }
        return Int(double)
    }
}

/// A key the spec format no longer has: why it went, and what to write instead.
public struct RetiredKey: Sendable {
    public var why: String
    public var fix: String

    public init(why: String, fix: String) {
        self.why = why
        self.fix = fix
    }
}
