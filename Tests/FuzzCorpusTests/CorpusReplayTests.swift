import Foundation
import FuzzHarnesses
import Testing

/// Every seed of Fuzz/corpus/<Target> through that libFuzzer target's harness, in the ordinary test
/// build: the checks scripts/fuzz runs first on its corpus, without rebuilding every module with
/// AddressSanitizer and libFuzzer's coverage (scripts/fuzz still does that to fuzz). A harness's
/// failed check traps, as libFuzzer needs it to, so it ends the test process with the check's
/// message rather than recording an issue.
struct CorpusReplayTests {
    /// A harness under the name of its target's folders, Fuzz/<Target> and Fuzz/corpus/<Target>.
    struct Harness: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (UnsafeRawBufferPointer) -> Void
        var testDescription: String { name }
    }

    static let harnesses = [
        Harness(name: "AppleNotificationEvent", run: AppleNotificationEventHarness.run),
        Harness(name: "AppleUserJSON", run: AppleUserJSONHarness.run),
        Harness(name: "AuthorizationState", run: AuthorizationStateHarness.run),
        Harness(name: "BrowserParameters", run: BrowserParametersHarness.run),
        Harness(name: "CacheControl", run: CacheControlHarness.run),
        Harness(name: "FacebookSignedRequest", run: FacebookSignedRequestHarness.run),
        Harness(name: "FormBody", run: FormBodyHarness.run),
        Harness(name: "ForwardedFor", run: ForwardedForHarness.run),
        Harness(name: "JSONBody", run: JSONBodyHarness.run),
        Harness(name: "JWK", run: JWKHarness.run),
        Harness(name: "JWS", run: JWSHarness.run),
        Harness(name: "PlainGetHead", run: PlainGetHeadHarness.run),
        Harness(name: "PlainJSONObject", run: PlainJSONObjectHarness.run),
        Harness(name: "RedirectURI", run: RedirectURIHarness.run),
    ]

    /// Fuzz/, found from this file rather than the current directory, which `swift test` does not fix.
    static let fuzz = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    @Test("every input of a target's corpus passes its harness's checks", arguments: harnesses)
    func replaysCorpus(_ harness: Harness) throws {
        let folder = Self.fuzz.appendingPathComponent("corpus").appendingPathComponent(harness.name)
        var isFolder: ObjCBool = false
        try #require(
            FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) && isFolder.boolValue,
            "no corpus folder Fuzz/corpus/\(harness.name)")
        let inputs = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
            .filter { try $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        try #require(!inputs.isEmpty, "Fuzz/corpus/\(harness.name) holds no input")
        // libFuzzer's driver starts with the empty input (Fuzz/LibFuzzer/LibFuzzer.c); so does this.
        Data().withUnsafeBytes(harness.run)
        for input in inputs {
            try Data(contentsOf: input).withUnsafeBytes(harness.run)
        }
    }

    @Test("every libFuzzer target has a harness here and a corpus")
    func everyTargetIsReplayed() throws {
        let files = FileManager.default
        let targets = try files.contentsOfDirectory(atPath: Self.fuzz.path)
            .filter { files.fileExists(atPath: Self.fuzz.appendingPathComponent($0).appendingPathComponent("main.swift").path) }
        let corpora = try files.contentsOfDirectory(atPath: Self.fuzz.appendingPathComponent("corpus").path)
        #expect(targets.count == Self.harnesses.count && !targets.isEmpty)
        #expect(Set(Self.harnesses.map(\.name)) == Set(targets), "Fuzz/<Target>/main.swift and this suite's harnesses differ")
        #expect(Set(corpora) == Set(targets), "Fuzz/corpus/ and the targets under Fuzz/ differ")
    }
}
