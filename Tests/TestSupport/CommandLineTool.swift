import Foundation

/// Runs command-line tools (`openssl`, `sha256sum`) that tests use as implementations
/// independent of the code under test. For the `issuer` binary itself, see `ChildProcess`.
public enum CommandLineTool {
    /// A tool that exited with a status other than 0.
    public struct Failure: Error, CustomStringConvertible {
        public let arguments: [String]
        public let status: Int32
        public var description: String { "\(arguments.joined(separator: " ")) failed with status \(status)" }
    }

    /// Runs `arguments` (the tool's name first, found on `PATH`) with `input` on stdin; answers
    /// its stdout, or throws `Failure` when it exits with a status other than 0.
    public static func run(_ arguments: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(arguments: arguments, status: process.terminationStatus) }
        return output
    }

    /// Runs the `openssl` CLI with `arguments`; answers its stdout as text.
    public static func openssl(_ arguments: [String]) throws -> String {
        String(decoding: try run(["openssl"] + arguments), as: UTF8.self)
    }
}
