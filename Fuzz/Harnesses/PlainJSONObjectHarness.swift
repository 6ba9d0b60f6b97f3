import Foundation
import IssuerCore

/// The JSON objects read without JSONDecoder (`PlainJSONObject`, which a DPoP proof's claims take,
/// docs/reference.md, "DPoP"). Whatever the bytes, reading them never traps; an object read there
/// is one Foundation reads the same way: an object with the same names, each string the same
/// string and each integer the same number. And a proof's claims are the same claims, or the same
/// refusal, whichever way they are read. Fuzzed by Fuzz/PlainJSONObject, replayed on its corpus by
/// Tests/FuzzCorpusTests.
public enum PlainJSONObjectHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let data = Data(input)
        let claims = try? DPoPProofClaims.read(data)
        precondition(claims == (try? JSONDecoder().decode(DPoPProofClaims.self, from: data)), "the claims read differently")
        guard let object = PlainJSONObject(data) else { return }
        guard let foundation = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            preconditionFailure("Foundation reads no object")
        }
        precondition(Set(foundation.keys) == Set(object.members.keys), "names \(foundation.keys) against \(object.members.keys)")
        for (name, value) in object.members {
            switch value {
            case .string(let string):
                precondition(foundation[name] as? String == string, "\(name): \(string) against \(String(describing: foundation[name]))")
            case .integer(let integer):
                guard let number = foundation[name] as? NSNumber, !(foundation[name] is String) else {
                    preconditionFailure("\(name): \(integer) against \(String(describing: foundation[name]))")
                }
                precondition(number.int64Value == integer && number.doubleValue == Double(integer), "\(name): \(integer) against \(number)")
            }
        }
    }
}
