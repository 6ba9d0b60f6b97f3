import Foundation
import IssuerCore
import IssuerStorage
@testable import issuer
import Testing
import TestSupport

/// `issuer doctor`'s settings and rotation rules, decided on a configuration alone; the checks
/// that need a database or the network run against real ones in IssuerEndToEndTests.
@Suite struct DoctorChecksTests {
    static func configuration(_ environment: [String: String]) throws -> Configuration {
        try Configuration(environment: environment)
    }

    @Test("ISSUER_URL: https ok, http on loopback ok, http elsewhere fails")
    func issuerURL() throws {
        #expect(DoctorCommand.issuerURLCheck(try Self.configuration(["ISSUER_URL": "https://id.example.com"])).status == .ok)
        #expect(DoctorCommand.issuerURLCheck(try Self.configuration(["ISSUER_URL": "http://localhost:8080"])).status == .ok)
        #expect(DoctorCommand.issuerURLCheck(try Self.configuration(["ISSUER_URL": "http://[::1]:8080"])).status == .ok)
        #expect(DoctorCommand.issuerURLCheck(try Self.configuration(["ISSUER_URL": "http://id.example.com"])).status == .fail)
        #expect(DoctorCommand.issuerURLCheck(try Self.configuration(["ISSUER_URL": "http://10.0.0.5:8080/oidc"])).status == .fail)
    }

    @Test("ISSUER_SECRET: warned about only with an external database")
    func secret() throws {
        let external = "postgresql://issuer@db.example.com/issuer"
        #expect(DoctorCommand.secretCheck(try Self.configuration(["ISSUER_DATABASE_URL": external])).status == .warn)
        #expect(DoctorCommand.secretCheck(try Self.configuration([
            "ISSUER_DATABASE_URL": external, "ISSUER_SECRET": Data(repeating: 7, count: 32).base64EncodedString(),
        ])).status == .ok)
        #expect(DoctorCommand.secretCheck(try Self.configuration([:])).status == .ok)
    }

    @Test("ISSUER_AUDIENCE equal to a client id warns (the default does), another name is ok")
    func audience() throws {
        #expect(DoctorCommand.audienceCheck(try Self.configuration([:])).status == .warn)
        #expect(DoctorCommand.audienceCheck(try Self.configuration(["ISSUER_AUDIENCE": "https://api.example.com"])).status == .ok)
    }

    @Test("rotation is due the interval after activation: ok before, warn after, both say when")
    func rotation() throws {
        try TestDirectories.withTemporary { directory in
            let clock = ManualClock()
            let rotation = KeyRotation(
                store: KeyRingDirectory(directory: directory),
                policy: KeyRotationPolicy(longestTokenLifetime: .seconds(3600), reloadInterval: .seconds(5)), clock: clock)
            let active = try #require(try rotation.initialize().ring.active)
            let since = active.activatedAt ?? active.createdAt
            let due = since.addingTimeInterval(30 * 86_400)
            let fresh = DoctorCommand.rotationCheck(active, interval: .seconds(30 * 86_400), now: since.addingTimeInterval(86_400))
            #expect(fresh.status == .ok)
            #expect(fresh.reason.contains(due.ISO8601Format()))
            #expect(fresh.reason.contains("in 29d"))
            let overdue = DoctorCommand.rotationCheck(active, interval: .seconds(30 * 86_400), now: due.addingTimeInterval(3600))
            #expect(overdue.status == .warn)
            #expect(overdue.reason.contains("1h ago"))
        }
    }
}
