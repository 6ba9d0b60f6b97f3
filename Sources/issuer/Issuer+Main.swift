import ArgumentParser
import Foundation
import IssuerServer

extension Issuer {
    /// Replaces the argument parser's entry point so that every command ends through one place
    /// that maps what went wrong to the documented exit statuses (``ExitStatus``): the parser's
    /// own usage errors exit 64 (`EX_USAGE` of sysexits.h), where scripts here expect 2.
    static func main() async {
        do {
            var command = try parseAsRoot()
            // The server's threads are laid out before its first await, on the main thread.
            if command is ServeCommand { ServerThreads.prepare() }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            finish(error)
        }
    }

    /// Exits with the status `error` means, its one line (or the parser's usage text) on stderr.
    private static func finish(_ error: any Error) -> Never {
        if !(error is CommandFailure), !(error is ExitCode) {
            switch exitCode(for: error) {
            case .success:
                // --help and --version, and a bare `issuer`: their text on stdout, exit 0.
                exit(withError: error)
            case .validationFailure:
                write(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage.rawValue)
            default:
                break
            }
        }
        let failure = CommandFailure(error)
        write(failure.line)
        Foundation.exit(failure.status.rawValue)
    }

    private static func write(_ message: String?) {
        guard let message, !message.isEmpty else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
