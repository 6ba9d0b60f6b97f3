import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing

/// What the sign-in statement is given for each thing a sign-in yields (docs/reference.md,
/// "Native sign-in" and "Hosted sign-in"): the statement itself runs in `SignInStoringContractTests`.
@Suite("Sign-in record")
struct SignInRecordTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func record(_ yields: SignInRecord.Yield, dpopThumbprint: String? = nil) -> SignInRecord {
        var request = SampleSignIn.request(subject: "record.sub", givenName: "Ada")
        request.dpopThumbprint = dpopThumbprint
        return SignInRecord(
            request: request, userID: UUID(), sessionID: UUID(), now: now, sessionExpiresAt: now + 7200, yields: yields)
    }

    @Test("a refresh token: 21 parameters, the DPoP key the session is bound to among them, and the name may overwrite the stored one")
    func refreshToken() throws {
        let record = record(.refreshToken(hash: [1], expiresAt: now + 3600), dpopThumbprint: "jkt-1")
        let parameters = SignInStore.parameters(record)
        #expect(parameters.count == 21)
        #expect(parameters[17] as? Bool == true)
        #expect(parameters[18] as? String == "jkt-1")
        #expect(parameters[19] as? [UInt8] == [1] && parameters[20] as? Date == now + 3600)
        #expect(parameters[0] as? UUID == record.userID && parameters[9] as? UUID == record.sessionID)
        #expect(parameters[7] as? String == "Ada" && parameters[13] as? Date == now && parameters[14] as? Date == now + 7200)
    }

    @Test("an authorization code: 26 parameters (the last its DPoP key) with the code's binding and the spent state, and a stored name is kept")
    func authorizationCode() throws {
        let record = record(.authorizationCode(
            hash: [2], expiresAt: now + 60, redirectURI: "https://app.example/cb", codeChallenge: "challenge", stateHash: [3],
            stateExpiresAt: now + 600, dpopJKT: "jkt-2"))
        let parameters = SignInStore.parameters(record)
        #expect(parameters.count == 26)
        #expect(parameters[25] as? String == "jkt-2")
        #expect(parameters[17] as? Bool == false)
        #expect(parameters[18] as? String == nil, "the hosted flow's session is bound, if at all, when its code is redeemed")
        #expect(parameters[19] as? [UInt8] == [2] && parameters[20] as? Date == now + 60)
        #expect(parameters[21] as? String == "https://app.example/cb" && parameters[22] as? String == "challenge")
        #expect(parameters[23] as? [UInt8] == [3] && parameters[24] as? Date == now + 600)
    }
}
