import Foundation

extension HTTPResponse {
    /// This response marked as a refusal by `rule`: the `FlowCheck-Rule` header carries its id.
    public func refused(by rule: FlowCheckRule) -> HTTPResponse {
        var response = self
        response.headers.set(FlowCheckRule.header, rule.rawValue)
        return response
    }

    /// The rule that refused the request, read from the `FlowCheck-Rule` header; nil for an
    /// answer that is not a refusal (or a header naming no known rule).
    public var rule: FlowCheckRule? {
        headers[FlowCheckRule.header].flatMap(FlowCheckRule.init(rawValue:))
    }
}
