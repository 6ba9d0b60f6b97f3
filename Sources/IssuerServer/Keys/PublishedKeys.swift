import Foundation
import IssuerCore
import JOSE
import NIOCore

/// One immutable state of the key ring as the server uses it: the ring that signs and verifies,
/// plus the JWKS bytes and strong ETag computed once when it changed (docs/reference.md, "JWKS"), never per
/// request.
struct PublishedKeys: Sendable {
    let ring: KeyRing
    /// The kids in the JWKS, in order: what decides whether the bytes must be recomputed.
    let publishedKids: [String]
    let jwksBody: ByteBuffer
    /// A strong validator (RFC 9110 §8.8.3): the quoted base64url SHA-256 of the body.
    let etag: String
    /// The JWKS endpoint's two answers, encoded for the answers written before the router.
    let encodedAnswers: EncodedJWKS

    init(ring: KeyRing, at date: Date) {
        self.ring = ring
        let jwks = ring.jwks(at: date)
        publishedKids = jwks.keys.compactMap(\.kid)
        let body = (try? JSONEncoder.oauth.encode(jwks)) ?? Data(#"{"keys":[]}"#.utf8)
        jwksBody = ByteBuffer(bytes: body)
        etag = "\"" + Base64URL.encode(JOSEDigest.sha256(body)) + "\""
        encodedAnswers = EncodedJWKS(etag: etag, body: jwksBody)
    }

    static let empty = PublishedKeys(ring: .empty, at: Date())
}

/// The JWKS endpoint's answers to a GET (200 and 304) as `EncodedAnswer`s, made once when the
/// ring is published, and held by reference: a static GET takes them from `KeyRingMonitor` with
/// one lock and one reference count, where copying the whole `PublishedKeys` and checking a
/// second cache under a second lock cost about 5% of the answer.
final class EncodedJWKS: Sendable {
    let etag: String
    let ok: EncodedAnswer
    let notModified: EncodedAnswer

    init(etag: String, body: ByteBuffer) {
        self.etag = etag
        ok = EncodedAnswer(JWKSEndpoint.answer(etag: etag, body: body, notModified: false))
        notModified = EncodedAnswer(JWKSEndpoint.answer(etag: etag, body: body, notModified: true))
    }
}
