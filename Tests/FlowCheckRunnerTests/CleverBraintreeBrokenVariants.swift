import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Deliberately broken Clever and Braintree clients, each from the real SDK core with one defect.
enum CleverBraintreeBrokenVariants {
    /// The same bytes every time: every login gets the same state.
    struct ConstantRandom: RandomSource {
        func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: 7, count: count) }
    }

    /// Compares nothing: hands the SDK the state it sent, whatever came back (the same defect
    /// as Clover's).
    static let stateNotCompared = CloverBrokenVariants.stateNotChecked

    /// The same bytes for every login, so every login gets the same state.
    static let stateReused: any FlowDriver = CoreSDKDriver(name: "one state for every login", random: { _ in ConstantRandom() })
    /// Sends a state of 11 characters (64 bits): too short to carry 128. (The SDK's own random
    /// source refuses to hand out fewer bytes than asked, so the short state is made on the way out.)
    static let stateTooShort: any FlowDriver = CoreSDKDriver(name: "64-bit state", userAgent: { base in
        CloverBrokenVariants.RewritingUserAgent(base: base) { components in
            CloverBrokenVariants.query(components) { $0.map { $0.name == "state" ? URLQueryItem(name: "state", value: String(($0.value ?? "").prefix(11))) : $0 } }
        }
    })

    /// Rewrites the Authorization header of the token request.
    static func basic(_ name: String, _ header: @escaping @Sendable (String) -> String) -> any FlowDriver {
        BrokenVariants.tampering(name) { request in
            var request = request
            request.headers = request.headers.map { $0.0.lowercased() == "authorization" ? ($0.0, header($0.1)) : $0 }
            return request
        }
    }

    static let basicWithSecret = basic("Basic header carries a secret") { _ in
        "Basic " + Data("ios-cle1%40district:not-so-secret".utf8).base64EncodedString()
    }
    static let basicWithoutColon = basic("Basic header without the colon") { _ in
        "Basic " + Data("ios-cle1%40district".utf8).base64EncodedString()
    }
    /// Skips RFC 6749 §2.3.1's form-encoding before base64 (the SDK's own header decoded and
    /// sent raw), as Base64.encode(ios_client_id + ":") reads literally. For an id of letters,
    /// digits, `-._*` and `@` Clever reads the same client either way; for one holding a `+`
    /// (CLE-CLIENT-AUTH's) it reads a space, another client.
    static let basicNotFormEncoded = basic("client id not form-encoded") { header in
        guard let encoded = header.split(separator: " ").last, let data = Data(base64Encoded: String(encoded)),
              let text = String(data: data, encoding: .utf8) else { return header }
        let raw = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text
        return "Basic " + Data(raw.utf8).base64EncodedString()
    }

    /// Sends the client secret to the merchant's server, as a device holding it would.
    static let secretFromDevice = BrokenVariants.tampering("client secret sent from the device") { request in
        guard request.url.path == "/backend/connect-url", var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else { return request }
        components.queryItems = [URLQueryItem(name: "client_secret", value: "bt-backend-secret-88Ka")]
        var request = request
        request.url = components.url ?? request.url
        return request
    }

    /// Accepts a URL of any scheme or host: rewrites them to the trusted ones before checking.
    static let anySchemeOrHost = BrokenVariants.overriding("URL handler accepts any scheme or host") { call, inner, _ in
        guard call.name == "openURL", let url = call.arguments["url"], var components = URLComponents(string: url) else { return nil }
        components.scheme = "examplescheme"
        components.host = "braintree"
        return try await inner.perform(AppCall(name: call.name, arguments: ["url": components.string ?? url]))
    }

    static let postsTwice: any FlowDriver = CoreSDKDriver(name: "handler posts twice", braintreeNotify: { post in
        { event in
            post(event)
            post(event)
        }
    })

    /// Exchanges a code for a token on the device after the handler accepted the URL, as a client
    /// that held the code would (it has no secret, so it tries without one).
    static let tokenOnDevice = BrokenVariants.overriding("token exchanged on the device") { call, inner, context in
        guard call.name == "openURL" else { return nil }
        let outcome = try await inner.perform(call)
        // Through the SDK's transport: plain URLSession on Linux hangs on the 401 Basic challenge.
        let transport = URLSessionTransport()
        defer { transport.invalidate() }
        _ = try? await transport.send(TransportRequest(
            method: "POST", url: context.baseURL.appendingPathComponent("braintree/oauth/access_tokens"),
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data("grant_type=authorization_code&code=from-the-url".utf8)
        ))
        return outcome
    }
}
