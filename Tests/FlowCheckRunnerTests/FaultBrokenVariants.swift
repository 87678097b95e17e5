import Foundation
import Testing
import FlowCheckCoreDriver
import FlowCheckRunner
import FlowCheckSDK

/// Broken clients for the fault flows (FLT-*).
enum FaultBrokenVariants {
    /// Follows redirects from API calls, as URLSession does by default.
    struct FollowingTransport: HTTPTransport {
        let base: any HTTPTransport

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var request = request
            var response = try await base.send(request)
            for _ in 0..<5 {
                guard (300...399).contains(response.status), let location = response.headers["location"],
                      let target = URL(string: location, relativeTo: request.url)?.absoluteURL else { break }
                request.url = target
                response = try await base.send(request)
            }
            return response
        }
    }

    static let followsRedirects: any FlowDriver = CoreSDKDriver(name: "follows redirects", transport: { FollowingTransport(base: $0) })

    /// Reads an unparseable product list as an empty one.
    static let truncatedIsEmpty = BrokenVariants.overriding("truncated answer read as an empty list") { call, inner, _ in
        guard call.name == "products" else { return nil }
        if case .error("invalidResponse", _) = try await inner.perform(call) { return .ok(["productCount": "0", "productIds": "", "productTitles": ""]) }
        return nil
    }
}

struct FaultSpecsEarnTheirPlaceTests {
    typealias Variant = SpecsEarnTheirPlaceTests.Variant

    static let variants: [Variant] = [
        Variant(name: "clears the store on any error", driver: BrokenVariants.clearsStoreOnError, mustFail: ["FLT-RESET", "FLT-STALL", "FLT-HTML5XX", "FLT-TRUNCATED"]),
        Variant(name: "follows redirects from API calls", driver: FaultBrokenVariants.followsRedirects, mustFail: ["FLT-REDIRECT-LOOP"]),
        Variant(name: "reads truncated JSON as an empty list", driver: FaultBrokenVariants.truncatedIsEmpty, mustFail: ["FLT-TRUNCATED"]),
    ]

    @Test(arguments: variants)
    func brokenSDKFails(_ variant: Variant) async throws {
        let results = try await SpecsEarnTheirPlaceTests.run(variant.mustFail, with: variant.driver)
        for id in variant.mustFail {
            let result = try #require(results[id])
            #expect(result.status == .failed, "\(id) against \(variant.name): \(result.status) \(result.errorMessage ?? "")")
        }
    }

    @Test func everyFaultSpecHasAVariantThatBreaksIt() throws {
        let covered = Set(Self.variants.flatMap(\.mustFail))
        for spec in try SpecsEarnTheirPlaceTests.specs() where spec.id.hasPrefix("FLT-") {
            #expect(covered.contains(spec.id), "no broken SDK shows that \(spec.id) can fail")
        }
    }
}
