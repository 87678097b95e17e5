import Foundation

extension MoltinClient {
    /// Fetches the product list (the tutorial's "Products").
    ///
    /// With a stored token: renews it first when it is expired or within the refresh margin, so an
    /// expired token is never sent; if the server still answers "Access token is not valid"
    /// (seed 003, "Using an expired token"), recovers once (refresh, falling back to
    /// `client_credentials`) and retries once. Without a stored token the request goes out with no
    /// `Authorization` header, and Moltin's 400 is reported.
    /// - Returns: The products.
    /// - Throws: `OAuthError`: `.httpStatus` with the server's message (e.g. 400 "Access token is
    ///   required"), `.tokenRejected` when the retry is refused too, `.notLoggedIn` when the token
    ///   has expired and no credentials are remembered, `.serverError`, `.invalidResponse`,
    ///   `.transport`, `.storage`. None of these change the store.
    public func products() async throws -> [MoltinProduct] {
        var token = try persistence.load()
        if let stored = token, stored.needsRefresh(at: clock.now, margin: configuration.refreshMargin) {
            token = try await tokenForUse(replacing: stored)
        }
        switch try await fetchProducts(with: token) {
        case .products(let products):
            return products
        case .failure(let error):
            throw error
        case .tokenRejected(let rejection):
            guard let rejected = token else { throw rejection }
            let renewed = try await tokenAfterRejection(of: rejected, rejection: rejection)
            switch try await fetchProducts(with: renewed) {
            case .products(let products):
                return products
            case .failure(let error), .tokenRejected(let error):
                // One recovery, one retry: a second rejection is final, never a loop.
                throw error
            }
        }
    }

    private func fetchProducts(with token: StoredToken?) async throws -> MoltinWire.ProductsOutcome {
        let request = try MoltinWire.productsRequest(baseURL: configuration.baseURL, accessToken: token?.accessToken)
        let secrets = secrets(credentials: credentials, tokens: [token].compactMap { $0 })
        // After a Retry-After wait, the same token only if it has not expired meanwhile.
        let response = try await send(request, secrets: secrets, stillFit: { [clock] in !(token?.isExpired(at: clock.now) ?? false) })
        return MoltinWire.productsOutcome(from: response, sentToken: token != nil, secrets: secrets)
    }

    /// A token fit to send in place of `stored`, which is expired or about to be.
    private func tokenForUse(replacing stored: StoredToken) async throws -> StoredToken {
        guard credentials != nil else {
            if stored.isExpired(at: clock.now) {
                throw OAuthError.notLoggedIn("the stored token has expired and no client credentials are in memory to renew it")
            }
            // Inside the margin but still valid: usable, and nothing better is obtainable.
            return stored
        }
        return try checkedFresh(try await sharedRenewal())
    }

    /// A token to retry with after the server rejected `rejected`.
    private func tokenAfterRejection(of rejected: StoredToken, rejection: OAuthError) async throws -> StoredToken {
        // Another caller may already have replaced the rejected token: use that, no new renewal.
        if let current = try persistence.load(),
           current.accessToken != rejected.accessToken,
           !current.needsRefresh(at: clock.now, margin: configuration.refreshMargin) {
            return current
        }
        guard credentials != nil else { throw rejection }
        return try checkedFresh(try await sharedRenewal())
    }

    /// Refuses a token that is expired on arrival, so the retry never sends an expired token.
    private func checkedFresh(_ token: StoredToken) throws -> StoredToken {
        guard !token.isExpired(at: clock.now) else {
            throw OAuthError.invalidResponse("the token endpoint issued a token that has already expired")
        }
        return token
    }
}
