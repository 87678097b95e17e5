import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner
import FlowCheckProviders
import FlowCheckServe
import FlowCheckSpec
import FlowCheckTestSupport

/// `flowcheck serve`'s log, scanned like the reports (``NoSecretInReportsTests``): no fixture
/// secret of any provider and no token any provider issued appears in it, whichever port the
/// secret was sent to and however it was encoded.
@Suite(.integration, .timeLimit(.minutes(20)))
struct ServeLogSecretScanTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    /// The default fixture with every secret made one that encodings change.
    static let fixtureJSON = FakeProviderHost.defaultFixtureJSON
        .replacingOccurrences(of: "serve-bt-secret-1", with: "bt s3&cr=t+é/1")
        .replacingOccurrences(of: "serve-password-3", with: "pw3 \\\"q\\\\&=")

    static func percentEncoded(_ text: String, lowerHex: Bool) -> String {
        text.utf8.map { byte -> String in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                return String(UnicodeScalar(byte))
            default:
                return String(format: lowerHex ? "%%%02x" : "%%%02X", byte)
            }
        }.joined()
    }

    /// Sends `request` raw (no URL type carries a space in the target) and reads until the
    /// server closes; what it answered. The request goes out with the connect, on its thread:
    /// serve's fakes keep their own timeouts (30 s idle), which a busy pool could outlast
    /// between two calls.
    static func exchange(port: Int, _ request: String) async throws -> String {
        let connection = try await RawConnection.connect(port: port, sending: request)
        return String(decoding: try await connection.readUntilClosed().bytes, as: UTF8.self)
    }

    /// Sends `secret` to `port` raw, percent-encoded with upper- and lower-case hex, in the
    /// path and in a query field whose name is not sensitive.
    static func send(_ secret: String, to port: Int) async throws -> Int {
        var answered = 0
        for form in [secret, percentEncoded(secret, lowerHex: false), percentEncoded(secret, lowerHex: true)] {
            for target in ["/probe/\(form)", "/probe?note=\(form)", "/\(form)"] {
                let answer = try await exchange(port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if answer.hasPrefix("HTTP/1.1 ") { answered += 1 }
            }
        }
        return answered
    }

    @Test func noSecretOfAnyProviderIsLoggedForAnyPort() async throws {
        let fixtures = try SpecLoader.standard.decodeFixtures(Array(Self.fixtureJSON.utf8), file: "(test fixture)")
        let lines = Lines()
        let host = FakeProviderHost(fixtures: fixtures, now: { Date() }, log: lines.add)
        let endpoints = try host.start()
        try await withTeardown {
            let ports = endpoints.flatMap { $0.baseURLs.values.compactMap(\.port) }
            #expect(ports.count == 5, "four providers, Clover with two origins")
            let moltin = try #require(endpoints.first { $0.provider.rawValue == "moltin" })
            // Tokens issued by one provider, to send to every port.
            var issued: [String] = []
            for _ in 0..<3 {
                let answer = try await Self.exchange(port: try #require(moltin.baseURL.port), Self.tokenRequest)
                let body = answer.components(separatedBy: "\r\n\r\n").dropFirst().joined()
                let token = try #require((try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["access_token"] as? String)
                issued.append(token)
            }
            let secrets = fixtures.flatMap { $0.1.secrets } + issued
            #expect(secrets.contains("bt s3&cr=t+é/1") && secrets.contains("pw3 \"q\\&="))
            var sent = 0
            for secret in secrets {
                for port in ports { sent += try await Self.send(secret, to: port) }
            }
            #expect(sent == secrets.count * ports.count * 9, "every request answered")
            let log = lines.all
            #expect(log.count >= sent, "every exchange logged")
            var judge = SecretForms()
            judge.add(secrets)
            for line in log {
                #expect(judge.firstOccurring(in: line) == nil, "a secret in the serve log: \(line)")
            }
        } offThePool: {
            host.stop()
        }
    }

    static let tokenRequest: String = {
        let body = "grant_type=client_credentials&client_id=serve-client&client_secret=serve-secret-1234"
        return "POST /oauth/access_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }()
}
