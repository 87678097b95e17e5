/// The flow catalogue of `specs/README.md`, rendered from the specs themselves: one table per
/// folder, a row per spec (id, title, file, seed, passage). The README's own prose stays
/// hand-written around the generated part, which sits between ``begin`` and ``end``; a test
/// fails when the committed catalogue is not this rendering.
public enum SpecCatalogue {
    /// The command that rewrites the generated part.
    public static let regenerate = "FLOWCHECK_RECORD_GOLDEN=1 swift test --filter GeneratedPagesTests"
    /// The line the generated part starts after.
    public static let begin = "<!-- catalogue:begin: generated from the specs; do not edit. Rewrite: \(regenerate) -->"
    /// The line the generated part ends before.
    public static let end = "<!-- catalogue:end -->"

    /// A spec and its path under the catalogue's folder (`moltin/auth.json`).
    public struct Entry: Sendable {
        public var path: String
        public var spec: FlowSpec

        public init(path: String, spec: FlowSpec) {
            self.path = path
            self.spec = spec
        }
    }

    /// The tables: a folder named like a provider under that provider's title, in registration
    /// order, then the other folders by name; in each, the specs in natural order of their id.
    public static func tables(_ entries: [Entry], providers: ProviderCatalog) -> String {
        var folders: [String: [Entry]] = [:]
        for entry in entries {
            let folder = entry.path.split(separator: "/", omittingEmptySubsequences: true).dropLast().first.map(String.init) ?? "."
            folders[folder, default: []].append(entry)
        }
        let providerFolders = providers.ids.map(\.rawValue).filter { folders[$0] != nil }
        let others = folders.keys.filter { !providerFolders.contains($0) }.sorted()
        var sections: [String] = []
        for folder in providerFolders + others {
            let heading = providers.description(of: Provider(folder))?.title ?? folder.prefix(1).uppercased() + folder.dropFirst()
            var section = "## \(heading)\n\n| id | flow | spec | seed | passage |\n| --- | --- | --- | --- | --- |\n"
            for entry in (folders[folder] ?? []).sorted(by: { NaturalOrder.precedes($0.spec.id, $1.spec.id) }) {
                let spec = entry.spec
                let cells = [spec.id, cell(spec.title), "`\(entry.path)`", seed(spec.source.seed), cell(spec.source.passage)]
                section += "| " + cells.joined(separator: " | ") + " |\n"
            }
            sections.append(section)
        }
        return sections.joined(separator: "\n")
    }

    /// `readme` with its generated part replaced by `tables`; nil when it has no markers.
    public static func spliced(_ readme: String, tables: String) -> String? {
        guard let start = readme.range(of: begin + "\n"), let stop = readme.range(of: end, range: start.upperBound..<readme.endIndex) else { return nil }
        return String(readme[..<start.upperBound]) + "\n" + tables + "\n" + String(readme[stop.lowerBound...])
    }

    /// `003` for a seed file `003_d427daaf6ba0e8e7.txt`; a team's own document as it is cited.
    static func seed(_ file: String) -> String {
        let number = file.prefix { $0.isNumber }
        return number.count == 3 && file.dropFirst(3).first == "_" ? String(number) : cell(file)
    }

    /// Text for a table cell: no line breaks, `|` escaped.
    static func cell(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ").replacing("|", with: "\\|")
    }
}
