/// Why migrations could not be applied.
public enum MigrationError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A file in the migrations directory is not named `NNNN_name.sql`.
    case badFileName(String)
    /// A file or the directory could not be read.
    case unreadable(String)
    /// Two files share a version number.
    case duplicateVersion(Int)
    /// An applied migration's file was edited afterwards. Schema history is append-only: write a
    /// new migration instead.
    case checksumMismatch(version: Int, name: String)

    /// One line for the operator; for an edited migration, also the fix.
    public var description: String {
        switch self {
        case .badFileName(let name): return "migration file '\(name)' is not named NNNN_name.sql"
        case .unreadable(let path): return "cannot read migrations at \(path)"
        case .duplicateVersion(let version): return "two migrations have version \(version)"
        case .checksumMismatch(let version, let name):
            return "migration \(version) (\(name)) was changed after it was applied; "
                + "restore the original file and add a new migration instead"
        }
    }
}
