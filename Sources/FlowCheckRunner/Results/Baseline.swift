import FlowCheckSpec

/// Flows expected to fail (known debt), read from a `--baseline` file in the shape of the
/// protobuf conformance suite's failure lists: one `FLOW-ID reason words` a line, `#` comments
/// and blank lines ignored. A baselined failure does not fail the run; a new failure still
/// does, and a baselined flow that passes is reported so its line can be removed.
///
/// An entry names a flow, or an invariant (`INV-KEEP reason`): a flow whose every failure is
/// a listed invariant's is baselined too, so a rule the SDK breaks everywhere is one line, while
/// any other failure in those flows still fails the run. Single checks are not listed: a flow
/// is the unit that passes or fails.
public struct Baseline: Sendable, Equatable {
    /// One expected failure and the line it came from.
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var reason: String
        public var line: Int

        public init(id: String, reason: String, line: Int) {
            self.id = id
            self.reason = reason
            self.line = line
        }
    }

    /// A baseline that cannot be used, named `file:line: problem` as compilers write it.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var message: String

        public init(file: String, line: Int, message: String) {
            self.file = file
            self.line = line
            self.message = message
        }

        /// `file:line: message`; `file: message` for the file as a whole (line 0: it cannot be read).
        public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
    }

    public var file: String
    public var entries: [Entry]

    public init(file: String, entries: [Entry]) {
        self.file = file
        self.entries = entries
    }

    /// Expected failures by flow id, with their reasons.
    public var reasons: [String: String] {
        Dictionary(entries.map { ($0.id, $0.reason) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads a baseline's text.
    /// - Throws: ``Problem`` at the first line that is not `FLOW-ID reason words`, a comment or
    ///   blank, or that names a flow a second time.
    public static func parse(_ text: String, file: String) throws(Problem) -> Baseline {
        // One rule for every text file the tool reads: a leading byte order mark is no text.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        var entries: [Entry] = []
        var seen: [String: Int] = [:]
        // `\r\n` is one Character (and one line break), like `\n`.
        for (offset, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = offset + 1
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let id = String(trimmed.prefix { $0 != " " && $0 != "\t" })
            let reason = trimmed.dropFirst(id.count).trimmingSpaces()
            guard isFlowID(id) else {
                throw Problem(file: file, line: number, message: "\"\(ControlCharacters.escaped(id))\" is not a flow id (expected a line like `MLT-AUTH reason words`, a # comment or a blank line)")
            }
            guard !reason.isEmpty else {
                throw Problem(file: file, line: number, message: "\(id) has no reason (write why it is expected to fail after the id: `\(id) reason words`)")
            }
            if let earlier = seen[id] {
                throw Problem(file: file, line: number, message: "\(id) is listed twice (first on line \(earlier))")
            }
            seen[id] = number
            entries.append(Entry(id: id, reason: reason, line: number))
        }
        return Baseline(file: file, entries: entries)
    }

    /// - Throws: ``Problem`` at the first entry whose id is not among `knownIDs` (every loaded
    ///   spec, before `--filter` and `--shard`), with the closest id when one is near.
    public func check(knownIDs: [String]) throws(Problem) {
        let known = Set(knownIDs)
        for entry in entries where !known.contains(entry.id) {
            let hint = Suggestion.closest(to: entry.id, in: knownIDs.sorted()).map { " (did you mean \($0)?)" } ?? ""
            throw Problem(file: file, line: entry.line, message: "no loaded spec has the flow id \(entry.id)\(hint)")
        }
    }

    /// A baseline file listing `failures` (flow id and a reason), sorted by id, each reason on
    /// one line, under a comment saying how it was made.
    public static func render(_ failures: [(id: String, reason: String)], command: String) -> String {
        var out = "# flowcheck baseline: flows expected to fail, one a line as `FLOW-ID reason`.\n"
        out += "# Written by `\(oneLine(command))` from the flows that failed in that run;\n"
        out += "# remove a line once its flow passes. Read with `flowcheck --baseline FILE`.\n"
        for failure in failures.sorted(by: { NaturalOrder.precedes($0.id, $1.id) }) {
            let reason = oneLine(failure.reason).trimmingSpaces()
            out += "\(failure.id) \(reason.isEmpty ? "failed" : reason)\n"
        }
        return out
    }

    /// `MLT-AUTH`: the catalogue id shape specs must have.
    static func isFlowID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 2, let first = parts[0].first, first.isASCII, first.isUppercase else { return false }
        return parts.allSatisfy { part in !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) } }
    }

    /// Control characters as spaces: a reason never spans lines.
    private static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}

private extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

private extension String {
    func trimmingSpaces() -> String { Substring(self).trimmingSpaces() }
}
