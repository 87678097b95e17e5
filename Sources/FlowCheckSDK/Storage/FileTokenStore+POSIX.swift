import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Loops around the raw system calls, which may transfer fewer bytes than asked or be interrupted.
extension FileTokenStore {
    static func readAll(from descriptor: Int32, key: String) throws -> Data {
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glue.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw posixFailure("could not read the token file for key '\(key)'")
            }
            if count == 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    static func writeAll(_ data: Data, to descriptor: Int32, key: String) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let count = Glue.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw posixFailure("could not write the token file for key '\(key)'")
                }
                offset += count
            }
        }
    }

    /// The names in the directory at `path` (not `.` and `..`), or nil when it cannot be
    /// listed. `readdir` itself: every save and delete lists the folder for leftovers, and
    /// FileManager's listing cost more than the save's own system calls.
    static func names(in path: String) -> [String]? {
        guard let stream = opendir(path) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            // readdir says end and failure alike, with nil; only errno tells them apart.
            errno = 0
            guard let entry = readdir(stream) else { return errno == 0 ? names : nil }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
    }

    /// An `OAuthError` `.storage` naming the failed step and the current `errno`.
    static func posixFailure(_ what: String) -> OAuthError {
        let code = errno
        return OAuthError.storage("\(what): \(String(cString: strerror(code))) (errno \(code))")
    }
}

/// The C functions whose names the store's own methods shadow.
private enum Glue {
    static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Darwin)
        return Darwin.read(descriptor, buffer, count)
        #elseif canImport(Musl)
        return Musl.read(descriptor, buffer, count)
        #else
        return Glibc.read(descriptor, buffer, count)
        #endif
    }

    static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        return Darwin.write(descriptor, buffer, count)
        #elseif canImport(Musl)
        return Musl.write(descriptor, buffer, count)
        #else
        return Glibc.write(descriptor, buffer, count)
        #endif
    }
}
