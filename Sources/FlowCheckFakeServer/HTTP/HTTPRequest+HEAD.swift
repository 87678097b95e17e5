extension HTTPRequest {
    /// The request a persona answers for this one: a `HEAD` is answered as the same `GET`
    /// (RFC 9110 §9.3.2), and the connection sends that answer's head without its body.
    /// Every other method is itself. The recording keeps the method as it was sent.
    var answeringHEADAsGET: HTTPRequest {
        guard method == "HEAD" else { return self }
        var request = self
        request.method = "GET"
        return request
    }
}
