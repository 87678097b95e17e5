import Foundation
import FlowCheckFakeServer
import FlowCheckRunner
import FlowCheckSDK

/// Broken SDKs for the flows written from `flowcheck explore`'s findings: each stands for the
/// mutant of `scripts/mutants` explore found (the source edit itself cannot be a test driver).
enum ExploreFoundBrokenVariants {
    /// Mutants 70 and 71: Refresh Token and the renewal before an API call delete the stored
    /// token before writing the new one (the Keychain's delete-then-add), so a write that dies
    /// leaves nothing stored.
    static let deleteBeforeWrite = BrokenVariants.overriding("the stored token deleted before the new one is written") { call, inner, _ in
        guard call.name == "refreshToken" || call.name == "products" else { return nil }
        let outcome = try await inner.perform(call)
        if case .error("storage", _) = outcome { _ = try await inner.perform(AppCall(name: "deleteToken")) }
        return outcome
    }

    /// Mutant 66: setupNone goes on with the token already in the store, ignoring the one the
    /// app passes.
    static let setupNoneKeepsStoredToken = BrokenVariants.overriding("setupNone keeps the stored token") { call, inner, _ in
        guard call.name == "setupNone", let stored = try await inner.storeContents()["accessToken"] else { return nil }
        var arguments = call.arguments
        arguments["token"] = stored
        return try await inner.perform(AppCall(name: call.name, arguments: arguments))
    }

    /// Mutant 57: a token the store could not save is returned as a successful login.
    static let storeFailureIsALogin = BrokenVariants.overriding("a token the store could not save reported as a login") { call, inner, _ in
        guard call.name == "receiveRedirect" else { return nil }
        let outcome = try await inner.perform(call)
        if case .error("storage", _) = outcome { return .ok(["tokenType": "bearer"]) }
        return outcome
    }

    /// The flows whose Connect has failed once, by flow id: a driver serves many flows at once.
    private static let failedConnects = Locked<Set<String>>([])

    /// Mutant 59: a Connect whose backend call fails ends the connect already in progress, so
    /// that page's return is ignored.
    static let failedConnectEndsTheOpenOne = BrokenVariants.overriding("a failed Connect ends the open one") { call, inner, context in
        switch call.name {
        case "connect":
            let outcome = try await inner.perform(call)
            // A failed tap marks the flow; one that opens a page starts a new connect.
            if case .error = outcome {
                failedConnects.withLock { _ = $0.insert(context.flowID) }
            } else {
                failedConnects.withLock { _ = $0.remove(context.flowID) }
            }
            return outcome
        case "openURL":
            guard failedConnects.withLock({ $0.contains(context.flowID) }) else { return nil }
            return .ok(["handled": "false"])
        default:
            return nil
        }
    }

    /// The flows whose failed return has been handled, by flow id.
    private static let failedReturns = Locked<Set<String>>([])

    /// Mutant 58: a failed return does not end the connect, so the same URL handed over again
    /// is handled (and notified) again.
    static let failedReturnKeepsConnect = BrokenVariants.overriding("a failed return keeps the connect") { call, inner, context in
        if call.name == "connect" {
            // A new connect: what the flow handled before is no longer kept.
            failedReturns.withLock { _ = $0.remove(context.flowID) }
            return nil
        }
        guard call.name == "openURL" else { return nil }
        if failedReturns.withLock({ $0.contains(context.flowID) }), call.arguments["url"]?.contains("/failed") == true {
            return .ok(["handled": "true"])
        }
        let outcome = try await inner.perform(call)
        if case .ok(let result) = outcome, result["handled"] == "true", call.arguments["url"]?.contains("/failed") == true {
            failedReturns.withLock { _ = $0.insert(context.flowID) }
        }
        return outcome
    }
}
