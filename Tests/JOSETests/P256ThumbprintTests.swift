import JOSE
import Testing

/// RFC 7638 thumbprints of EC keys, the `jkt` of RFC 9449 §6.1.
@Suite struct P256ThumbprintTests {
    /// RFC 9449 §4.1's example proof key and the `jkt` its §6.1 example access token is bound to.
    @Test func matchesTheDPoPSpecificationsExample() throws {
        let jwk = JWK(
            kty: "EC", crv: "P-256", x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
            y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA")
        let key = try P256PublicKey(jwk: jwk)
        #expect(key.thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(JWSVerificationKey.p256(key).thumbprint == key.thumbprint)
    }

    /// Members that RFC 7638 §3.2 leaves out (`kid`, `alg`, `use`) do not change the thumbprint.
    @Test func ignoresNonRequiredMembers() throws {
        let x = "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs", y = "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"
        let bare = try P256PublicKey(jwk: JWK(kty: "EC", crv: "P-256", x: x, y: y))
        let dressed = try P256PublicKey(jwk: JWK(kty: "EC", use: "sig", alg: "ES256", kid: "k1", crv: "P-256", x: x, y: y))
        #expect(bare.thumbprint == dressed.thumbprint)
    }
}
