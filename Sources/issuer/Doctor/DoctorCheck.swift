/// One line of `issuer doctor`: what was checked, how it went, and why, in words an operator can
/// act on. Never a secret value (the database URL, the server secret).
struct DoctorCheck: Sendable, Equatable {
    enum Status: String, Sendable {
        /// As it should be.
        case ok
        /// Works, but deserves attention (an overdue rotation, a pending migration).
        case warn
        /// Broken, or unsafe enough to fix before serving; `doctor` exits 1.
        case fail
    }

    let name: String
    let status: Status
    let reason: String

    static func ok(_ name: String, _ reason: String) -> DoctorCheck { DoctorCheck(name: name, status: .ok, reason: reason) }
    static func warn(_ name: String, _ reason: String) -> DoctorCheck { DoctorCheck(name: name, status: .warn, reason: reason) }
    static func fail(_ name: String, _ reason: String) -> DoctorCheck { DoctorCheck(name: name, status: .fail, reason: reason) }

    var json: JSONValue {
        .object(["name": .string(name), "status": .string(status.rawValue), "reason": .string(reason)])
    }
}
