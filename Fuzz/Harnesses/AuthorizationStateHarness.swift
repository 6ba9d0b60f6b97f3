import Crypto
import Foundation
import IssuerCore
import JOSE

/// The sealed `state` the hosted flow gets back through the browser and Apple. Each input is
/// opened as the text a browser brings back, and is also sealed as the plaintext inside a genuine
/// seal, to reach the decoding behind the AES-GCM check. The seeds in
/// Fuzz/corpus/AuthorizationState were sealed with the fixed secret below. Fuzzed by
/// Fuzz/AuthorizationState, replayed on its corpus by Tests/FuzzCorpusTests.
public enum AuthorizationStateHarness {
    private struct FixedClock: WallClock {
        var now: Date
    }

    /// Bytes 0, 1, …, 31: the seeds in Fuzz/corpus/AuthorizationState were sealed with it.
    private static let secret = ServerSecret(bytes: Array(0..<32))
    /// 2026-01-01T00:00:00Z; the seeds expire ten minutes after 2025-12-31T23:55:00Z.
    private static let now = Date(timeIntervalSince1970: 1_767_225_600)
    private static let sealer = AuthorizationStateSealer(secret: secret, clock: FixedClock(now: now))
    private static let key = secret.key(for: "hosted-flow-state")
    /// The sealer's associated data, repeated here; `selfCheck` fails loudly if the two drift apart.
    private static let context = Data("issuer hosted-flow state v1".utf8)

    /// Seals arbitrary plaintext exactly as the sealer seals a state's JSON.
    private static func sealRaw(_ plaintext: Data) -> String {
        Base64URL.encode(try! AES.GCM.seal(plaintext, using: key, authenticating: context).combined!)
    }

    private static let selfCheck: Void = {
        let state = AuthorizationState(
            request: AuthorizationRequest(
                clientID: "app", redirectURI: "https://rp.example/cb", scopes: ["openid"], state: "s",
                codeChallenge: String(repeating: "A", count: 43), nonce: nil),
            provider: "apple", now: now)
        precondition((try? sealer.open(sealRaw(try! JSONEncoder().encode(state)))) == state, "the harness no longer seals as the sealer does")
    }()

    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        selfCheck
        let bytes = Data(input)

        // 1. As the text a browser brings back: never traps; what opens is sound.
        if let state = try? sealer.open(String(decoding: bytes, as: UTF8.self)) {
            checkOpened(state, salt: input.count)
        }

        // 2. As the plaintext of a genuine seal: opened exactly when it decodes and has not expired.
        let sealed = sealRaw(bytes)
        let decoded = try? JSONDecoder().decode(AuthorizationState.self, from: bytes)
        do {
            let state = try sealer.open(sealed)
            precondition(state == decoded, "opened \(state), which the plaintext does not decode to")
            checkOpened(state, salt: input.count)
        } catch {
            switch error {
            case .expired:
                precondition(decoded.map { TimeInterval($0.expiresAt) <= now.timeIntervalSince1970 } == true, "refused as expired")
            case .malformed:
                precondition(decoded == nil || sealed.utf8.count > AuthorizationStateSealer.maximumLength, "a well-formed state refused as malformed")
            case .forged:
                preconditionFailure("a genuine seal refused as forged")
            }
        }
    }

    /// An opened state has not expired, seals and opens again unchanged, and no altered seal of it opens.
    private static func checkOpened(_ state: AuthorizationState, salt: Int) {
        precondition(TimeInterval(state.expiresAt) > now.timeIntervalSince1970, "expired state opened")
        let resealed = sealer.seal(state)
        guard let again = try? sealer.open(resealed) else {
            // Only a state too long to carry may fail to open again.
            precondition(resealed.utf8.count > AuthorizationStateSealer.maximumLength, "reseal of \(state) refused")
            return
        }
        precondition(again == state, "round trip changed \(state) into \(again)")
        var text = Array(resealed.utf8)
        let position = salt % text.count
        text[position] = text[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        precondition((try? sealer.open(String(decoding: text, as: UTF8.self))) == nil, "an altered seal opened")
    }
}
