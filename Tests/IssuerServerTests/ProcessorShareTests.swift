@testable import IssuerServer
import Testing

/// Issue 12: the affinity mask a process may run on, read the way the kernel writes it.
@Suite("Processor share")
struct ProcessorShareTests {
    @Test("Cpus_allowed masks: one core, two, a sparse set across 32-bit groups, and nonsense", arguments: [
        ("Name:\tissuer\nCpus_allowed:\t1\nCpus_allowed_list:\t0\n", 1 as Int?),
        ("Cpus_allowed:\t3\n", 2),
        ("Cpus_allowed:\tffffffff,ffffffff\n", 64),
        ("Cpus_allowed:\t00000000,00000100,0000000f\n", 5),
        ("Cpus_allowed:\t0\n", nil),
        ("Cpus_allowed:\txyz\n", nil),
        ("Name:\tissuer\n", nil),
    ])
    func mask(status: String, expected: Int?) {
        #expect(ProcessorShare.affinityCount(status: status) == expected)
    }

    @Test("this process's share is no more than its affinity mask allows")
    func share() throws {
        let affinity = try #require(ProcessorShare.affinityCount, "Linux always reports Cpus_allowed")
        #expect(ProcessorShare.cores <= affinity)
    }
}
