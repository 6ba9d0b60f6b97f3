import ArgumentParser

/// Whose token `issuer dev token` mints: the three stand-ins `DevSigner` signs for, each at the
/// exchange route of its own name. An unknown value is refused by the parser, listing these.
enum DevProvider: String, CaseIterable, ExpressibleByArgument {
    case apple
    case google
    case facebook
}
