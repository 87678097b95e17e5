import Foundation

/// What every fake persona answers the same way: fresh random values, method refusals,
/// uncacheable token answers, whole seconds. Shared so no persona reaches into another's folder.
enum Persona {
    /// 405 with the methods the path allows.
    static func methodNotAllowed(allow: String) -> HTTPResponse {
        var response = HTTPResponse.json(405, ["message": "405 Method Not Allowed"])
        response.headers.set("Allow", allow)
        return response
    }

    /// Whole seconds, rounded down and clamped, so odd fixture values cannot trap.
    static func wholeSeconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? Int.max : Int.min }
        return Int(max(min(seconds.rounded(.down), 9e18), -9e18))
    }

    /// `byteCount` bytes from the system CSPRNG as lowercase hex.
    static func randomHex(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// RFC 6749 §5.1: token responses (and their errors) must not be cached.
    static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Pragma", "no-cache")
        return response
    }
}
