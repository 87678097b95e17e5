import Foundation

/// Finds spec files, reads them and reports every problem with its place, never stopping the
/// valid specs from loading.
public struct SpecLoader: Sendable {
    /// What a load produced: the valid specs (sorted by id) and the problems of the others.
    public struct Result: Sendable {
        public var specs: [FlowSpec]
        public var diagnostics: [SpecDiagnostic]
        /// The files that had at least one problem, in the order found.
        public var invalidFiles: [String]
        /// Warnings about the valid specs, in file order (an invalid spec's come once it is fixed).
        public var warnings: [SpecDiagnostic] = []
        /// The team's own requirements (``TeamRequirementFile``), in file order.
        public var teamRequirements: [TeamRequirement] = []
    }

    /// A path that names neither a file nor a folder.
    public struct MissingPath: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var description: String { "no such file or folder: \(path)" }
    }

    /// The providers a spec may name.
    public let providers: ProviderCatalog
    /// The requirement ids a spec may cite.
    public let requirements: RequirementCatalog

    /// - Parameters:
    ///   - providers: the registered providers (FlowCheckProviders' `ProviderRegistry`).
    ///   - requirements: the requirement catalogue's ids (FlowCheckProviders' `RequirementCatalogue.ids`).
    public init(providers: ProviderCatalog, requirements: RequirementCatalog) {
        self.providers = providers
        self.requirements = requirements
    }

    /// Every `.json` spec under the given files and folders (folders searched recursively,
    /// `*.schema.json` left out), sorted by path so runs are repeatable.
    /// - Throws: ``MissingPath`` for a path that does not exist.
    public func specFiles(in paths: [String]) throws(MissingPath) -> [String] {
        var files: [String] = []
        let fileManager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else { throw MissingPath(path: path) }
            if !isDirectory.boolValue {
                files.append(path)
                continue
            }
            let base = path.hasSuffix("/") ? String(path.dropLast()) : path
            // Enumerate the resolved folder (a symlinked specs folder is followed) but name files by
            // the path the user gave, so reports show what they typed.
            let resolved = URL(fileURLWithPath: base).resolvingSymlinksInPath().path
            guard let enumerator = fileManager.enumerator(atPath: resolved) else { continue }
            var found: [String] = []
            for case let relative as String in enumerator where relative.hasSuffix(".json") && !relative.hasSuffix(".schema.json") && !relative.hasSuffix(TeamRequirementFile.name) {
                var isFolder: ObjCBool = false
                if fileManager.fileExists(atPath: resolved + "/" + relative, isDirectory: &isFolder), isFolder.boolValue { continue }
                found.append(base + "/" + relative)
            }
            files.append(contentsOf: found.sorted())
        }
        // The same file reached by two spellings of its path is one file.
        var seen = Set<String>()
        return files.filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path).inserted }
    }

    /// Loads every spec under `paths`.
    /// - Throws: ``MissingPath`` when a path does not exist (a usage error, not a spec error).
    public func load(paths: [String]) throws(MissingPath) -> Result {
        // A team's own requirement catalogues first: its specs may cite them.
        var team: [TeamRequirement] = []
        var diagnostics: [SpecDiagnostic] = []
        var invalid: [String] = []
        for catalogue in try teamCatalogues(in: paths) {
            let (requirements, problems) = TeamRequirementFile.read(catalogue, builtIn: self.requirements)
            for requirement in requirements where !team.contains(where: { $0.id == requirement.id }) { team.append(requirement) }
            if !problems.isEmpty {
                diagnostics += problems
                invalid.append(catalogue)
            }
        }
        if !team.isEmpty {
            let loader = SpecLoader(providers: providers, requirements: RequirementCatalog(requirements.ids + team.map(\.id)))
            var result = try loader.loadSpecs(paths: paths, diagnostics: diagnostics, invalid: invalid)
            result.teamRequirements = team
            return result
        }
        return try loadSpecs(paths: paths, diagnostics: diagnostics, invalid: invalid)
    }

    /// Every ``TeamRequirementFile`` under `paths`: named as a path, found in a folder, or
    /// beside a spec file named alone (`flowcheck teamspecs/one.json` finds
    /// `teamspecs/flowcheck.requirements.json`, as running the folder does).
    public func teamCatalogues(in paths: [String]) throws(MissingPath) -> [String] {
        var found: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw MissingPath(path: path) }
            if !isDirectory.boolValue {
                if path.hasSuffix(TeamRequirementFile.name) {
                    found.append(path)
                } else if let slash = path.lastIndex(of: "/") {
                    let beside = String(path[...slash]) + TeamRequirementFile.name
                    if FileManager.default.fileExists(atPath: beside) { found.append(beside) }
                } else if FileManager.default.fileExists(atPath: TeamRequirementFile.name) {
                    found.append(TeamRequirementFile.name)
                }
                continue
            }
            let base = path.hasSuffix("/") ? String(path.dropLast()) : path
            let resolved = URL(fileURLWithPath: base).resolvingSymlinksInPath().path
            guard let enumerator = FileManager.default.enumerator(atPath: resolved) else { continue }
            for case let relative as String in enumerator where relative == TeamRequirementFile.name || relative.hasSuffix("/" + TeamRequirementFile.name) {
                found.append(base + "/" + relative)
            }
        }
        // One catalogue found two ways (its folder and a spec beside it) is read once.
        var seen = Set<String>()
        return found.sorted().filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path).inserted }
    }

    private func loadSpecs(paths: [String], diagnostics: [SpecDiagnostic], invalid: [String]) throws(MissingPath) -> Result {
        let files = try specFiles(in: paths).filter { !$0.hasSuffix(TeamRequirementFile.name) }
        var specs: [FlowSpec] = []
        var diagnostics = diagnostics
        var invalid = invalid
        var warnings: [SpecDiagnostic] = []
        var idOwners: [String: String] = [:]
        for file in files {
            switch load(file: file) {
            case .valid(let spec):
                if let owner = idOwners[spec.id] {
                    diagnostics.append(SpecDiagnostic(file: file, location: idLocation(of: file) ?? spec.location, path: "$.id", title: "duplicate id \(SpecText.quoted(spec.id)) (already used by \(owner))", fix: "give each flow its own catalogue id"))
                    invalid.append(file)
                } else {
                    idOwners[spec.id] = file
                    specs.append(spec)
                    warnings += spec.warnings
                }
            case .invalid(let problems):
                // In file order, as an author reads them.
                diagnostics.append(contentsOf: problems.sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) })
                invalid.append(file)
            }
        }
        specs.sort { NaturalOrder.precedes($0.id, $1.id) }
        return Result(specs: specs, diagnostics: diagnostics, invalidFiles: invalid, warnings: warnings)
    }

    /// Loads one file.
    public func load(file: String) -> SpecFile {
        guard let data = FileManager.default.contents(atPath: file) else {
            return .invalid([SpecDiagnostic(file: file, location: SourceLocation(line: 1, column: 1), path: "$", title: "cannot read the file", fix: "check that it exists and is readable")])
        }
        return decode(Array(data), file: file)
    }

    /// The JSON path of the value being read at `offset`: the text before it, read as far as it
    /// goes, ends inside that value (an invalid byte in a title is at `$.title`).
    static func path(at offset: Int, in bytes: [UInt8]) -> String {
        do {
            _ = try JSONReader.parse(Array(bytes[..<min(offset, bytes.count)]))
            return "$"
        } catch {
            return error.path
        }
    }

    /// Decodes spec text that came from `file` (which only names it in diagnostics).
    public func decode(_ bytes: [UInt8], file: String) -> SpecFile {
        if let invalid = UTF8Position.firstInvalidByte(in: bytes) {
            let byte = String(format: "0x%02X", invalid.byte)
            return .invalid([SpecDiagnostic(file: file, location: invalid.location, path: Self.path(at: invalid.offset, in: bytes), title: "the file is not UTF-8 text: byte \(byte) (offset \(invalid.offset)) starts no UTF-8 character", fix: "save it as UTF-8; a byte like this is often an accented letter saved as Latin-1 or Windows-1252")])
        }
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            return .invalid([SpecDiagnostic(file: file, location: error.location, path: error.path, title: "invalid JSON: \(error.message)", fix: error.fix)])
        }
        var decoder = SpecDecoder(file: file, providers: providers, requirements: requirements)
        return decoder.decode(root)
    }

    private func idLocation(of file: String) -> SourceLocation? {
        guard let data = FileManager.default.contents(atPath: file), let root = try? JSONReader.parse(Array(data)) else { return nil }
        return root.members?.first { $0.key == "id" }?.value.location
    }
}

/// One spec file after loading: the spec, or why it is not one.
public enum SpecFile: Sendable {
    case valid(FlowSpec)
    case invalid([SpecDiagnostic])
}

/// A fixture file that is not one, with every problem found.
public struct FixtureSetError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [SpecDiagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

extension SpecLoader {
    /// Decodes a `flowcheck serve` fixture file: `{"moltin": {...}, "clover": {...}, ...}`, each
    /// provider's fixture as specs write it.
    /// - Throws: ``FixtureSetError`` naming file, line:column and JSON path.
    public func decodeFixtures(_ bytes: [UInt8], file: String) throws(FixtureSetError) -> [(Provider, any ProviderFixture)] {
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw FixtureSetError(diagnostics: [SpecDiagnostic(file: file, location: error.location, path: error.path, title: "invalid JSON: \(error.message)", fix: error.fix)])
        }
        var decoder = SpecDecoder(file: file, providers: providers, requirements: requirements)
        return try decoder.decodeFixtureSet(root).get()
    }
}
