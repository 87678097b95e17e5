/// The `interleave` family (to come): a logout while each request of a login or renewal is
/// held in flight.
enum Interleavings {
    static func derive(_ spec: FlowSpec, provider: any ProviderDescription) -> [Deriver.Candidate] {
        []
    }
}
