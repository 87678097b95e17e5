import Foundation

/// The process's peak resident set, as the kernel counts it.
enum PeakMemory {
    /// VmHWM from /proc/self/status in bytes; nil where there is no procfs (macOS).
    static func bytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }

    static func line() -> String {
        guard let bytes = bytes() else { return "peak memory: unknown (no /proc/self/status)" }
        return "peak memory: \(Format.whole(Double(bytes) / 1_048_576)) MiB"
    }
}
