import ArgumentParser

/// How a command that lists or shows writes its answer: aligned text for a person, or one JSON
/// document (RFC 8259) on stdout for a script.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text
    case json
}
