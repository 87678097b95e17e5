import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner

/// Secrets in the encodings clients really produce that no precomputed form foresees: the
/// redactor masks them (over their whole encoded span), and the leak judge, with its own
/// decoding, still finds them where they are left unmasked.
@Suite(.fast, .timeLimit(.minutes(20)))
struct RedactorEncodedFormsTests {
    static let secret = "sk-7Hq2vX9pL4=ok"

    /// Every byte of `text` as `%XX`.
    static func everyBytePercentEncoded(_ text: String) -> String {
        text.utf8.map { String(format: "%%%02X", $0) }.joined()
    }

    static let texts: [(what: String, text: String)] = [
        ("an unreserved character percent-encoded", "client_secret=sk%2D7Hq2vX9pL4%3Dok&x=1"),
        ("every byte percent-encoded, lower-case hex", "q=" + everyBytePercentEncoded(secret).lowercased()),
        ("every byte percent-encoded", "q=" + everyBytePercentEncoded(secret)),
        ("a JSON library's \\u escapes (Gson's \\u003d)", #"{"client_secret":"sk-7Hq2vX9pL4\u003dok"}"#),
        ("a \\u escape in pretty-printed JSON with quotes of its own", "{\n  \"note\": \"say \\\"hi\\\"\",\n  \"client_secret\": \"sk-7Hq2vX9pL4\\u003dok\"\n}"),
        ("every character \\u-escaped", "{\"s\":\"" + secret.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined() + "\"}"),
        ("base64 of id:secret outside an Authorization header", "credentials=" + Data("client-1:\(secret)".utf8).base64EncodedString()),
        ("base64 of a JSON document holding it", "payload " + Data(#"{"a":"\#(secret)"}"#.utf8).base64EncodedString()),
        ("unpadded base64url of it", "t=" + Data(secret.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")),
        ("base64url of id:secret, unpadded", "x " + Data("id:\(secret)".utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")),
        ("base64 wrapped at 76 columns with the secret across the break (MIME, Python's encodebytes)", wrapped(at: 76, separator: "\n")),
        ("base64 wrapped at 64 columns with CRLF (PEM)", wrapped(at: 64, separator: "\r\n")),
        ("wrapped base64 in a one-line rendering (escaped \\n, as a driver's stderr in a report)", wrapped(at: 76, separator: "\\n")),
        ("wrapped base64, each line indented (YAML, a pretty log)", "blob:\n  " + wrapped(at: 76, separator: "\n  ").dropFirst("blob:\n".count)),
        ("wrapped base64 as a JSON array of quoted lines", "[\"" + wrapped(at: 76, separator: "\",\n  \"").dropFirst("blob:\n".count).dropLast("\",\n  \"".count) + "\"]"),
    ]

    /// Base64 of a document holding the secret, wrapped into lines of `width` so the secret's
    /// encoding is cut by a line break.
    static func wrapped(at width: Int, separator: String) -> String {
        // Padding puts the secret's 16 bytes across the break: 8 on each line (the 21 bytes
        // of JSON around the padding and before the secret, then the padding, end 8 bytes
        // before the line's width * 3 / 4).
        let padding = String(repeating: "u", count: width * 3 / 4 - 29)
        let encoded = Array(Data(#"{"user":"\#(padding)","secret":"\#(secret)"}"#.utf8).base64EncodedString())
        let lines = stride(from: 0, to: encoded.count, by: width).map { String(encoded[$0..<min($0 + width, encoded.count)]) }
        return "blob:\n" + lines.joined(separator: separator) + separator
    }

    @Test(arguments: texts.map(\.what))
    func theRedactorMasksItAndTheJudgeSeesItUnmasked(_ what: String) throws {
        let text = try #require(Self.texts.first { $0.what == what }).text
        var judge = SecretForms()
        judge.add([Self.secret])
        #expect(judge.firstOccurring(in: text) == Self.secret, "the leak judge misses \(what) in \(text)")
        let scrubbed = Redactor(secrets: [Self.secret]).scrub(text)
        #expect(scrubbed.contains(Redactor.mask), "\(what): \(scrubbed)")
        #expect(judge.firstOccurring(in: scrubbed) == nil, "\(what): what the mask left still shows the secret: \(scrubbed)")
    }

    /// Text an SDK or a driver wrote may hold a secret cut in pieces: with fragments indexed,
    /// every piece of 12 characters or more is masked over its whole length, a shorter one is
    /// left (it could be anything), and a redactor without fragments masks whole forms only.
    @Test func piecesOfASecretAreMaskedWhenFragmentsAreIndexed() {
        let token = "4c12dadc481460dd309d3f7a9be2c5e01d6b8a7f29c4e3b1"
        let redactor = Redactor(secrets: [token], fragments: true)
        let halves = "first \(token.prefix(24)) then \(token.dropFirst(24)) end"
        #expect(redactor.scrubbingFragments(halves) == "first \(Redactor.mask) then \(Redactor.mask) end")
        #expect(redactor.scrubbingFragments("log: " + token.dropFirst(5).prefix(12) + ".") == "log: \(Redactor.mask).")
        #expect(redactor.scrubbingFragments("short " + token.prefix(11)) == "short " + token.prefix(11))
        #expect(redactor.scrubbingFragments("whole \(token)!") == "whole \(Redactor.mask)!")
        #expect(Redactor(secrets: [token]).scrubbingFragments(halves) == halves, "no pieces unless asked for")
        #expect(redactor.scrubbingFragments("nothing secret here at all") == "nothing secret here at all")
    }

    /// The words around a secret are left as they are, and a text with no secret is untouched.
    @Test func onlyTheSecretsSpanIsMasked() {
        let redactor = Redactor(secrets: [Self.secret])
        #expect(redactor.scrub("before sk%2D7Hq2vX9pL4%3Dok after") == "before \(Redactor.mask) after")
        #expect(redactor.scrub(#"{"k":"sk-7Hq2vX9pL4\u003dok","n":1}"#) == #"{"k":"\#(Redactor.mask)","n":1}"#)
        for text in ["100% sure", #"a \u00e9 b"#, "50%2 off", "YWJjZGVmZ2hpams= not ours", "a line of base64 YWJjZGVmZ2hpamts\nbG1ub3BxcnN0dXZ3 not ours"] {
            #expect(redactor.scrub(text) == text)
        }
    }
}
