#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes all of some bytes to a file descriptor with `write(2)`: a failure is an `errno`,
/// never a trap. The console streams and the report writer both write this way.
public enum DescriptorWrite {
    /// - Returns: nil when every byte was written, else the `errno` that stopped it (`EIO` for
    ///   a write that took nothing).
    public static func all(_ text: String, to descriptor: Int32) -> Int32? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0, errno == EINTR {
                continue
            } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                // A non-blocking descriptor that is full: wait until it takes more.
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 1000)
            } else {
                return written < 0 ? errno : EIO
            }
        }
        return nil
    }
}
