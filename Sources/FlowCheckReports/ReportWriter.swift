import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a report file atomically: a temporary file beside it, then a rename, so a reader (or
/// a crash) never sees half a report.
///
/// The temporary file is `.NAME.flowcheck-PID.tmp` beside the report. A run killed while
/// writing (SIGKILL cannot be caught) leaves it behind; ``removeStaleTemporaryFiles(for:)``
/// removes those of processes that no longer run, and a run calls it before writing.
public enum ReportWriter {
    /// Why a report could not be written, in a sentence a user can act on.
    public struct WriteError: Error, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        public var description: String { "could not write \(path): \(reason)" }
    }

    /// - Parameters:
    ///   - defaultName: the file name suggested when `path` is a folder (`junit.xml`).
    /// - Throws: ``WriteError`` when the folder cannot be made or the file cannot be written.
    public static func write(_ text: String, to path: String, defaultName: String = "report") throws {
        let url = URL(fileURLWithPath: path)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw WriteError(path: path, reason: "it is a folder; give a file path, such as \((path as NSString).appendingPathComponent(defaultName))")
        }
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw WriteError(path: path, reason: "its folder \(folder.path) cannot be made (\(folderProblem(folder.path)))")
        }
        let temporary = folder.appendingPathComponent(temporaryName(for: url.lastPathComponent, pid: getpid())).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteError(path: path, reason: sentence(errno)) }
        if let code = DescriptorWrite.all(text, to: descriptor) {
            _ = close(descriptor)
            _ = unlink(temporary)
            throw WriteError(path: path, reason: sentence(code))
        }
        guard close(descriptor) == 0 else {
            let code = errno
            _ = unlink(temporary)
            throw WriteError(path: path, reason: sentence(code))
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            _ = unlink(temporary)
            throw WriteError(path: path, reason: sentence(code))
        }
    }

    /// Appends `text` to the file at `path` (created, owner read-write and others read, when
    /// missing): for `$GITHUB_STEP_SUMMARY`, which other steps write too.
    /// - Throws: ``WriteError`` in a sentence (a folder, no permission, a full disk).
    public static func append(_ text: String, to path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw WriteError(path: path, reason: "it is a folder; it must name a file")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteError(path: path, reason: sentence(errno)) }
        if let code = DescriptorWrite.all(text, to: descriptor) {
            _ = close(descriptor)
            throw WriteError(path: path, reason: sentence(code))
        }
        guard close(descriptor) == 0 else { throw WriteError(path: path, reason: sentence(errno)) }
    }

    /// Removes the temporary files a killed run left beside `path`: those of processes that
    /// no longer run (a concurrent run's file is its own, and stays). Errors are ignored: a
    /// file that cannot be removed is no reason not to write the report.
    /// - Returns: the files removed.
    @discardableResult
    public static func removeStaleTemporaryFiles(for path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let prefix = "." + url.lastPathComponent + ".flowcheck-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        var removed: [String] = []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            guard let pid = Int32(name.dropFirst(prefix.count).dropLast(".tmp".count)) else { continue }
            // Alive (or not ours to signal): leave it.
            if kill(pid, 0) == 0 || errno == EPERM { continue }
            let file = folder.appendingPathComponent(name).path
            if unlink(file) == 0 { removed.append(file) }
        }
        return removed
    }

    static func temporaryName(for name: String, pid: Int32) -> String {
        ".\(name).flowcheck-\(pid).tmp"
    }

    /// The errno in words, with what to do where there is something to do.
    static func sentence(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: return "permission denied; choose a folder you can write to"
        case ENOSPC: return "the disk is full"
        case EDQUOT: return "the disk quota is used up"
        case EROFS: return "the file system is read-only; choose a writable folder"
        case ENOTDIR: return "a part of the path is a file, not a folder"
        case EISDIR: return "it is a folder; give a file path"
        case ENAMETOOLONG: return "the path is too long"
        default: return String(cString: strerror(code))
        }
    }

    /// Why a folder cannot be made: the first part of its path that exists and is a file.
    private static func folderProblem(_ folder: String) -> String {
        var path = folder
        while !path.isEmpty, path != "/" {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
                return isFolder.boolValue ? "permission denied in \(path)" : "\(path) is a file, not a folder"
            }
            path = (path as NSString).deletingLastPathComponent
        }
        return "no part of it can be made"
    }
}
