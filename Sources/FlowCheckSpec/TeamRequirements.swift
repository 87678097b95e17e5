import Foundation

/// A requirement of a team's own, from a `flowcheck.requirements.json` beside its specs: its
/// specs cite it as they cite ours, and the coverage matrix lists it after ours.
public struct TeamRequirement: Sendable, Equatable {
    public var id: String
    /// What it requires, in the team's words.
    public var statement: String
    /// Where it comes from: a document, a section, a ticket.
    public var source: String
    /// The catalogue file it was read from.
    public var file: String

    public init(id: String, statement: String, source: String, file: String) {
        self.id = id
        self.statement = statement
        self.source = source
        self.file = file
    }
}

/// Reads a team's requirement catalogue:
///
/// ```json
/// {"requirements": [{"id": "TEAM-REFRESH-EARLY", "statement": "The app refreshes a minute before expiry.", "source": "docs/login.md"}]}
/// ```
///
/// Ids are capitals, digits and dashes with at least one dash, never one of FlowCheck's own nor
/// given twice; every problem is located, as in a spec.
public enum TeamRequirementFile {
    /// The file name the loader looks for in every spec folder (and takes as a path).
    public static let name = "flowcheck.requirements.json"
    static let keys = ["$schema", "requirements"]
    static let entryKeys = ["id", "statement", "source"]

    /// The requirements of `file`, and its problems (none when it is well-formed).
    public static func read(_ file: String, builtIn: RequirementCatalog) -> (requirements: [TeamRequirement], diagnostics: [SpecDiagnostic]) {
        guard let data = FileManager.default.contents(atPath: file) else {
            return ([], [SpecDiagnostic(file: file, location: SourceLocation(line: 1, column: 1), path: "$", title: "cannot read the requirement catalogue", fix: "check that it exists and is readable")])
        }
        let bytes = Array(data)
        if let invalid = UTF8Position.firstInvalidByte(in: bytes) {
            return ([], [SpecDiagnostic(file: file, location: invalid.location, path: SpecLoader.path(at: invalid.offset, in: bytes), title: "the file is not UTF-8 text", fix: "save it as UTF-8")])
        }
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            return ([], [SpecDiagnostic(file: file, location: error.location, path: error.path, title: "invalid JSON: \(error.message)", fix: error.fix)])
        }
        let reader = SpecReader(file: file)
        var found: [TeamRequirement] = []
        let example = #"{"id": "TEAM-REFRESH-EARLY", "statement": "The app refreshes a minute before expiry.", "source": "docs/login.md"}"#
        if let members = reader.object(root, "$", allowed: keys, example: #"{"requirements": [\#(example)]}"#) {
            for (item, path) in reader.elements(members, "requirements", in: root, "$", example: "[\(example)]") {
                guard let fields = reader.object(item, path, allowed: entryKeys, example: example) else { continue }
                let id = reader.string(fields, "id", in: item, path, required: true, example: "\"TEAM-REFRESH-EARLY\"")
                let statement = reader.string(fields, "statement", in: item, path, required: true, example: "\"The app refreshes a minute before expiry.\"")
                let source = reader.string(fields, "source", in: item, path, required: true, example: "\"docs/login.md\"")
                guard let id, let statement, let source, let idNode = fields["id"]?.value else { continue }
                if builtIn.contains(id) {
                    reader.report(idNode, path + ".id", "requirement id \(reader.quoted(id)) is one of FlowCheck's own", fix: "cite it as it is, and give your own requirement an id of its own, e.g. with your team's prefix")
                } else if !SpecPattern.catalogueID.matches(id) {
                    reader.report(idNode, path + ".id", "requirement id \(reader.quoted(id)) is not capitals, digits and dashes", fix: "write it like \"TEAM-REFRESH-EARLY\"")
                } else if let earlier = found.first(where: { $0.id == id }) {
                    reader.report(idNode, path + ".id", "requirement id \(reader.quoted(id)) is given twice (first in \(earlier.file))", fix: "give each requirement its own id")
                } else {
                    found.append(TeamRequirement(id: id, statement: statement, source: source, file: file))
                }
            }
        }
        return (found, reader.diagnostics)
    }
}
