import Foundation

/// What every fake persona answers the same way: fresh random values, method refusals,
/// uncacheable token answers, whole seconds. Shared so no persona reaches into another's folder.
enum Persona {
    /// 405 with the methods the path allows; a path that allows GET allows HEAD too, which
    /// the responder chain answers as GET.
    static func methodNotAllowed(allow: String) -> HTTPResponse {
        var response = HTTPResponse.json(405, ["message": "405 Method Not Allowed"])
        response.headers.set("Allow", allowing(allow))
        return response.refused(by: .methodNotAllowed)
    }

    /// `allow` with HEAD after GET.
    static func allowing(_ allow: String) -> String {
        allow == "GET" ? "GET, HEAD" : allow
    }

    /// A login page shown again with 401 after a wrong email or password. RFC 9110 §15.5.2:
    /// a 401 MUST carry a challenge; the page is an HTML form, not HTTP authentication, so
    /// the challenge names the scheme `Form` that no browser answers with a dialog
    /// (FlowCheck policy; providers answer such a page 200 or 401 without one).
    static func formLoginRefused(_ page: HTTPResponse, realm: String) -> HTTPResponse {
        var response = page
        response.headers.set("WWW-Authenticate", formChallenge(realm: realm))
        return response.refused(by: .loginBadCredentials)
    }

    /// The challenge of a 401 whose credentials travel in a form body (a login page, Moltin's
    /// token endpoint): `Form realm="..."`, a scheme no HTTP client or browser tries to answer.
    static func formChallenge(realm: String) -> String {
        "Form realm=\"\(realm)\""
    }

    /// 404 in the JSON shape the API hosts use.
    static let notFound = HTTPResponse.json(404, ["message": "404 Not Found"]).refused(by: .notFound)

    /// Whole seconds, rounded down and clamped, so odd fixture values cannot trap.
    static func wholeSeconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? Int.max : Int.min }
        return Int(max(min(seconds.rounded(.down), 9e18), -9e18))
    }

    /// `byteCount` bytes from the system CSPRNG as lowercase hex.
    /// Eight bytes a draw (one `getrandom` each, not one a byte), written as hex digit by digit:
    /// a fake issues several of these every flow, and a string per byte was a measurable share.
    static func randomHex(byteCount: Int) -> String {
        hex(randomBytes(byteCount))
    }

    /// `bytes` as lowercase hex.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `count` bytes from the system CSPRNG, eight a draw.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            var word = generator.next()
            for _ in 0..<min(8, count - bytes.count) {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return bytes
    }

    /// RFC 6749 §5.1: token responses (and their errors) must not be cached. Every answer on
    /// a token endpoint's path carries these, a 405 included.
    static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Pragma", "no-cache")
        return response
    }
}
