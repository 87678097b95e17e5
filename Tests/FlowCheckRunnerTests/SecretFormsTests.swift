import Foundation
import FlowCheckTestLanes
import Testing
@testable import FlowCheckRunner

/// The leak judge's encodings are its own code, not the redactor's: they must still find every
/// form the redactor masks, so a secret the report would hide never passes the judge.
@Suite(.fast, .timeLimit(.minutes(20)))
struct SecretFormsTests {
    static let secrets = ["sk-7Hq2vX9pL4", "a b&c=d+e/f", "pässwörd-ü", "quote\"back\\slash/", "tab\there"]

    @Test(arguments: secrets)
    func findsEveryFormTheRedactorMasks(_ secret: String) {
        var judge = SecretForms()
        judge.add([secret])
        for form in Redactor.forms(of: secret) where form.utf8.count >= SecretForms.minimumLength {
            #expect(judge.firstOccurring(in: "message: \(form) end") == secret, "the redactor masks \(form), the judge missed it")
        }
    }

    @Test(arguments: secrets)
    func findsLowerCaseHexAndBasicCredentials(_ secret: String) {
        var judge = SecretForms()
        judge.add([secret])
        let lower = secret.utf8.map { byte -> String in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? String(UnicodeScalar(byte)) : String(format: "%%%02x", byte)
        }.joined()
        #expect(judge.firstOccurring(in: "client_secret=\(lower)") == secret)
        let basic = Data("client:\(secret)".utf8).base64EncodedString()
        #expect(judge.firstOccurring(in: "Authorization: Basic \(basic)") == secret)
    }

    @Test func ignoresTextWithoutTheSecret() {
        var judge = SecretForms()
        judge.add(["sk-7Hq2vX9pL4", "short"])
        #expect(judge.firstOccurring(in: "invalid client secret for store-1") == nil)
        #expect(judge.firstOccurring(in: "sk-7Hq2vX9pL") == nil)
    }
}
