import Foundation

/// Paths of what `swift build` produced next to the running test bundle.
public enum BuiltProducts {
    /// The `issuer` executable of the same build as these tests.
    public static var issuer: String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return directory.appendingPathComponent("issuer").path
    }
}
