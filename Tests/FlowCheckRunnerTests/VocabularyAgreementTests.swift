import FlowCheckFakeServer
import FlowCheckProviders
import FlowCheckSDK
import FlowCheckSpec
import FlowCheckTestLanes
import Testing

/// The words specs may use are kept in the spec module, which knows neither the fake nor the
/// SDK; these tests tie the lists to the types they name, so neither side can grow alone.
@Suite(.fast, .timeLimit(.minutes(20)))
struct VocabularyAgreementTests {
    @Test("every fault a spec may name is one the fake server can produce, and every one is nameable")
    func faultKindsAreTheFakesFaults() {
        #expect(Vocabulary.faultKinds.sorted() == FaultKind.allCases.map(\.rawValue).sorted())
    }

    @Test("every error kind a spec may expect is an OAuthError code of the SDK, and every code is expectable")
    func errorKindsAreTheSDKsCodes() {
        #expect(Vocabulary.errorKinds.sorted() == OAuthError.Code.allKnown.map(\.name).sorted())
    }

    @Test("each provider's id is registered once, and the spec-side catalogue is the same list")
    func providersAreRegisteredOnce() {
        let ids = ProviderRegistry.kits.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(!ids.isEmpty)
        #expect(ProviderRegistry.catalog.ids == ids)
    }
}
