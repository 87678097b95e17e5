import Foundation

/// Writes a report file atomically: a temporary file beside it, then a rename, so a reader (or
/// a crash) never sees half a report.
public enum ReportWriter {
    /// - Throws: when the folder cannot be made or the file cannot be written.
    public static func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url, options: .atomic)
    }
}
