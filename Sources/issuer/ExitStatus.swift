/// The exit statuses of every `issuer` command, documented in docs/cli.md so that scripts can
/// tell a missing user from an unreachable database without reading stderr.
///
/// The numbers follow the shell's convention that 1 is a general failure and 2 a misuse (as
/// bash's builtins and most Unix tools use them); 3 to 5 are the issuer's own.
enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The command did what was asked (or there was nothing to do).
    case done = 0
    /// The command failed: an invalid setting (each named on one line, as serving would refuse
    /// it), a refused key rotation, an edited migration, a failed `doctor` check.
    case failed = 1
    /// A malformed command line, or a command that cannot run as configured: no
    /// `ISSUER_DATABASE_URL` and no embedded cluster where it runs, an unreadable `--env-file`.
    case usage = 2
    /// What the command was asked about does not exist (a user).
    case notFound = 3
    /// A dependency did not answer: the database, or Apple where a command waits for it.
    case unavailable = 4
    /// The command worked, and found work still to do: `migrate --status` with migrations pending.
    case pending = 5
}
