import Foundation
import FlowCheckFakeServer
import FlowCheckReports
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the process's console streams (stdout or stderr), written with `write(2)` so a
/// failed write is an error code, never a trap.
///
/// When the stream is gone (the reader closed the pipe: `EPIPE`; the disk is full: `ENOSPC`;
/// the descriptor was closed: `EBADF`; or any other write error) it is marked gone and later
/// text is dropped: the run goes on, writes its reports and exits with its own code. SIGPIPE
/// must be ignored for `EPIPE` to arrive as an error (see ``ignoreBrokenPipes()``).
public final class ConsoleStream: Sendable {
    private let descriptor: Int32
    /// The `errno` that ended the stream; writes hold its lock, so texts never interleave.
    private let goneReason: Locked<Int32?>

    /// - Parameter descriptor: `STDOUT_FILENO` or `STDERR_FILENO`.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        var gone: Int32?
        if fcntl(descriptor, F_GETFD) == -1 {
            // Closed at launch. Something must hold the number, or the next file the run
            // opens (a report) would get it and console text would land in that file.
            gone = EBADF
            let null = open("/dev/null", O_WRONLY)
            if null >= 0, null != descriptor {
                _ = dup2(null, descriptor)
                _ = close(null)
            }
        }
        goneReason = Locked(gone)
    }

    /// The `errno` that ended the stream, or nil while it is writable.
    public var gone: Int32? {
        goneReason.withLock { $0 }
    }

    /// Writes all of `text`, or marks the stream gone at the first failure.
    public func write(_ text: String) {
        let descriptor = self.descriptor
        goneReason.withLock { gone in
            guard gone == nil else { return }
            gone = DescriptorWrite.all(text, to: descriptor)
        }
    }

    /// Makes a write to a closed pipe fail with `EPIPE` instead of killing the process.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}
