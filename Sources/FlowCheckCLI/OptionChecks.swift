import Foundation
import FlowCheckSpec

/// What the options promise, checked before anything starts: one line naming the option and
/// the cause in plain words, never found out after a run (an unwritable report), a command
/// that quietly ignores an option, or a name run as a shell command.
enum OptionChecks {
    /// The in-process drivers `--driver builtin:NAME` names.
    static let builtinDrivers = ["builtin:core", "builtin:example"]

    /// Checks that need only the arguments (no file system).
    static func check(_ options: CommandLineOptions) throws(CommandLineOptions.UsageError) {
        for choice in options.drivers where choice.command.hasPrefix("builtin:") && !builtinDrivers.contains(choice.command) {
            let hint = Suggestion.closest(to: choice.command, in: builtinDrivers).map { "did you mean \($0)? " } ?? ""
            throw CommandLineOptions.UsageError(description: "--driver \(choice.name.map { $0 + "=" } ?? "")\(choice.command): no built-in driver of that name (\(hint)built-ins: \(builtinDrivers.joined(separator: ", "))); a driver process is any other command")
        }
        if options.paths.contains(where: \.isEmpty) {
            throw CommandLineOptions.UsageError(description: "an empty spec path was given (an unset shell variable?); name a spec file or folder, e.g. specs/")
        }
        for (flag, value) in [("--junit", options.junitPath), ("--markdown", options.markdownPath), ("--json", options.matrixJSONPath), ("--baseline", options.baselinePath), ("--write-baseline", options.writeBaselinePath), ("--fixture", options.fixturePath), ("--ready-file", options.readyFile)] {
            if let value, value.trimmingCharacters(in: .whitespaces).isEmpty {
                throw CommandLineOptions.UsageError(description: "\(flag) was given an empty path; name a file, e.g. \(flag) reports/out")
            }
        }
        if options.list, options.format == .json {
            throw CommandLineOptions.UsageError(description: "--format json does not go with --list, which prints a text list (for the run's JSON document: --format json without --list)")
        }
        if options.command == .explore {
            for (flag, value) in [("--out", Optional(options.explore.out)), ("--reach", options.explore.reachTable)] {
                if let value, value.trimmingCharacters(in: .whitespaces).isEmpty {
                    throw CommandLineOptions.UsageError(description: "explore \(flag) was given an empty path")
                }
            }
        }
    }

    /// Checks of the files the command will write, against the file system as it is now: a
    /// report path that is a folder, a folder path that is a file, a parent that is a file.
    static func checkOutputs(_ options: CommandLineOptions) throws(CommandLineOptions.UsageError) {
        var files: [(String, String)] = []
        var folders: [(String, String)] = []
        switch options.command {
        case .run:
            if !options.list {
                files += [("--junit", options.junitPath), ("--markdown", options.markdownPath)]
                if let path = options.writeBaselinePath { files.append(("--write-baseline", path)) }
            }
        case .matrix:
            files += [("--markdown", options.markdownPath), ("--json", options.matrixJSONPath)]
        case .serve:
            if let path = options.readyFile { files.append(("--ready-file", path)) }
        case .explore:
            folders.append(("--out", options.explore.out))
            if let path = options.explore.reachTable { files.append(("--reach", path)) }
        case .validate, .schema:
            break
        }
        for (flag, path) in files {
            if let problem = problem(writingFile: path) { throw CommandLineOptions.UsageError(description: "\(flag) \(path): \(problem)") }
        }
        for (flag, path) in folders {
            if let problem = problem(writingFolder: path) { throw CommandLineOptions.UsageError(description: "\(flag) \(path): \(problem)") }
        }
    }

    /// Why a file cannot be written at `path`, in plain words; nil when nothing stands in the way.
    static func problem(writingFile path: String) -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            return "is a folder; name a file in it, e.g. \(path.hasSuffix("/") ? path : path + "/")out"
        }
        return problem(parentsOf: path)
    }

    /// Why a folder cannot be made or written at `path`; nil when nothing stands in the way.
    static func problem(writingFolder path: String) -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
            return "is a file, and findings are written into a folder; name a folder (it is made if missing)"
        }
        return problem(parentsOf: path)
    }

    /// A parent of `path` that exists and is not a folder (so nothing can be made under it).
    private static func problem(parentsOf path: String) -> String? {
        var parent = (path as NSString).deletingLastPathComponent
        while !parent.isEmpty, parent != "/" {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder) {
                return isFolder.boolValue ? nil : "\(parent) is a file, so nothing can be written under it"
            }
            let next = (parent as NSString).deletingLastPathComponent
            if next == parent { break }
            parent = next
        }
        return nil
    }
}
