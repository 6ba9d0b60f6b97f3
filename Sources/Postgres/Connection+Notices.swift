import CLibPQ
import Logging

extension Connection {
    /// Routes the server's notices through the process's logger instead of libpq's default,
    /// which prints them raw on stderr (`NOTICE:  relation … already exists, skipping`): with
    /// `ISSUER_LOG_FORMAT=json` every line of stderr must be a JSON object (docs/reference.md,
    /// "Faults and bad input"). Notices the server means as chatter (`NOTICE`, `INFO`, `DEBUG`,
    /// `LOG`) are debug lines; a `WARNING` is a warning.
    func receiveNotices(on handle: OpaquePointer) {
        PQsetNoticeReceiver(handle, { context, result in
            guard let context, let result else { return }
            let connection = Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue()
            connection.logNotice(result)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func logNotice(_ result: OpaquePointer) {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let severity = field("V") ?? field("S") ?? "NOTICE"
        let message = field("M") ?? ""
        var metadata: Logger.Metadata = ["severity": "\(severity)"]
        if let code = field("C") { metadata["sqlstate"] = "\(code)" }
        logger.log(level: severity == "WARNING" ? .warning : .debug, "database notice: \(message)", metadata: metadata)
    }
}
