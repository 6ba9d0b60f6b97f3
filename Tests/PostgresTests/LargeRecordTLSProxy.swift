#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TestSupport

/// A TLS-terminating proxy in front of a `TLSCluster` that answers in the largest TLS records
/// there are, 16 KiB of plaintext each (RFC 5246, section 6.2.1; RFC 8446, section 5.1).
///
/// PostgreSQL 15 encrypts at most 8 KiB at a time (its send buffer), and libpq always reads with
/// at least 8 KiB of room, so a direct link never leaves decrypted bytes behind in OpenSSL. Other
/// peers send larger records (PostgreSQL 17 hands a large message to TLS whole; proxies and
/// compatible databases frame as they like): a record larger than libpq's room is then read in
/// part, the rest waits inside OpenSSL, and the socket stays quiet although the answer is complete.
/// That is why the non-blocking path reads on while OpenSSL holds bytes
/// (`Connection+NonBlocking.swift`), and what this proxy produces on purpose, the same way every
/// time: it holds each answer back until its ReadyForQuery message (PostgreSQL docs, "Message
/// Flow"), has it encrypted in full records counted from the answer's first byte, and writes those
/// records to the client together, so that the client's reads find them all at once.
///
/// libpq's SSLRequest is answered here; the TLS session itself is `openssl s_server`'s (one per
/// connection, on a Unix socket of its own), whose plaintext side is the cluster's Unix socket:
/// what the client sends goes to the server as it comes, and `s_server` encrypts what it reads
/// from its standard input in pieces of up to 16 KiB, one record each.
final class LargeRecordTLSProxy: Sendable {
    private struct State {
        var stopped = false
        var opened = 0
        /// The client sockets of the sessions still running, shut down by `stop()`.
        var clients: Set<Int32> = []
        /// Sessions whose threads have not finished (their `s_server` not yet reaped).
        var running = 0
    }

    /// The TCP port the proxy listens on, at 127.0.0.1.
    let port: Int
    private let cluster: TLSCluster
    private let listener: Int32
    private let state = Mutex(State())

    /// libpq's SSLRequest: length 8, then the code 1234 5679 (PostgreSQL docs, "SSL Session Encryption").
    private static let sslRequest: [UInt8] = [0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F]
    /// The most plaintext one TLS record carries.
    static let recordSize = 16_384

    /// Starts listening at once.
    init(inFrontOf cluster: TLSCluster) throws {
        self.cluster = cluster
        (listener, port) = try LoopbackSocket.listen(backlog: 64)
        _ = fcntl(listener, F_SETFD, FD_CLOEXEC)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The issuer's role on database `issuer` through the proxy, with TLS required (the proxy
    /// refuses a client that does not ask for it).
    var url: String {
        "postgresql://issuer@127.0.0.1:\(port)/issuer?sslmode=require&gssencmode=disable&connect_timeout=10"
    }

    /// TLS sessions the proxy has opened: each began with an SSLRequest and a handshake with `s_server`.
    var sessionsOpened: Int { state.withLock { $0.opened } }

    /// Runs `body` with a proxy in front of `cluster`, stopped whichever way `body` ends (before
    /// the cluster goes: no `s_server` outlives the test).
    static func with<Result>(
        inFrontOf cluster: TLSCluster, isolation: isolated (any Actor)? = #isolation,
        _ body: (LargeRecordTLSProxy) async throws -> Result
    ) async throws -> Result {
        let proxy = try LargeRecordTLSProxy(inFrontOf: cluster)
        let result: Result
        do {
            result = try await body(proxy)
        } catch {
            _ = try? await Offload.run { proxy.stop() }
            throw error
        }
        _ = try? await Offload.run { proxy.stop() }
        return result
    }

    /// Stops accepting, ends every session (its sockets shut down, its `s_server` killed) and
    /// waits up to 10 s for their threads to finish. Blocks: call it off the cooperative pool.
    func stop() {
        let clients = state.withLock { state -> Set<Int32>? in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state.clients
        }
        if let clients {
            _ = shutdown(listener, Int32(SHUT_RDWR))
            for client in clients { _ = shutdown(client, Int32(SHUT_RDWR)) }
        }
        let deadline = Date().addingTimeInterval(10)
        while state.withLock({ $0.running }) > 0 && Date() < deadline { usleep(10_000) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        defer { close(listener) }
        var number = 0
        while !isStopped {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            if client < 0 { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            // As libpq does on its side: a request's last small piece goes out at once.
            var noDelay: Int32 = 1
            _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let admitted = state.withLock { state in
                guard !state.stopped else { return false }
                state.clients.insert(client)
                state.running += 1
                return true
            }
            guard admitted else {
                close(client)
                continue
            }
            number += 1
            Thread.detachNewThread { [self, number] in
                serve(client, number: number)
                state.withLock { _ = $0.clients.remove(client) }
                close(client)
                state.withLock { $0.running -= 1 }
            }
        }
    }

    /// One client's session, from its SSLRequest to either side closing.
    private func serve(_ client: Int32, number: Int) {
        let request = LoopbackSocket.receive(client, milliseconds: 10_000) { $0.count >= Self.sslRequest.count }
        guard request == Self.sslRequest, LoopbackSocket.sendAll(client, [UInt8(ascii: "S")]) else { return }
        guard let database = Self.connect(unixSocket: cluster.socketPath) else { return }
        defer { close(database) }
        var feed: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &feed) == 0 else { return }
        defer { close(feed[0]) }
        // Named relative to s_server's directory: it refuses a -unix path longer than some 30 bytes.
        let socketName = "s_server-\(number).sock"
        let socketPath = cluster.scratch.appendingPathComponent(socketName).path
        // The plaintext side: what s_server decrypts goes straight to the database, and it encrypts
        // what the answer feed gives it. -quiet: no banner among the bytes, no command letters.
        // TLS 1.2, whose handshake records keep their own content type, so that the records of
        // answers can be told apart and counted (TLS 1.3 sends its handshake as application data
        // too: RFC 8446, section 5).
        let terminator = try? Self.spawn([
            "openssl", "s_server", "-quiet", "-naccept", "1", "-unix", socketName, "-no_tls1_3",
            "-cert", cluster.certificatePath, "-key", cluster.keyPath,
        ], in: cluster.scratch, input: feed[1], output: database)
        close(feed[1])
        guard let terminator else { return }
        defer {
            kill(terminator, SIGKILL)
            var status: Int32 = 0
            while waitpid(terminator, &status, 0) == -1 && errno == EINTR {}
            unlink(socketPath)
        }
        guard let tls = Self.connect(unixSocket: socketPath, within: 10, unless: terminator) else { return }
        defer { close(tls) }
        state.withLock { $0.opened += 1 }

        // Each direction on a thread of its own: a whole answer written to s_server blocks until
        // it has gone out to the client, which the other directions must keep moving meanwhile.
        // The first direction to end ends the others (shutdown wakes their blocked reads).
        let sockets = [client, tls, database, feed[0]]
        let endAll: @Sendable () -> Void = { for socket in sockets { _ = shutdown(socket, Int32(SHUT_RDWR)) } }
        let answers = AnswerRecords()
        let done = DispatchGroup()
        for direction in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                if direction == 0 { Self.copy(from: client, to: tls) } else { Self.forwardRecords(from: tls, to: client, answers) }
                endAll()
                done.leave()
            }
        }
        Self.forwardWholeAnswers(from: database, to: feed[0], answers)
        endAll()
        done.wait()
    }

    /// How many records each answer handed to `s_server` becomes, oldest first: the piece
    /// count that `forwardWholeAnswers` wrote, one record each.
    private final class AnswerRecords: Sendable {
        private let counts = Mutex<[Int]>([])

        func append(_ count: Int) { counts.withLock { $0.append(count) } }

        /// The oldest answer's record count if `held` records complete it, which is then forgotten.
        func takeIfComplete(held: Int) -> Int? {
            counts.withLock { counts in
                guard let first = counts.first, first <= held else { return nil }
                counts.removeFirst()
                return first
            }
        }
    }

    /// Copies bytes as they come until either side closes.
    private static func copy(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0, LoopbackSocket.sendAll(destination, buffer[0..<count]) else { return }
        }
    }

    /// Copies `s_server`'s TLS records to the client, the records of one answer together in a
    /// single write, so that they reach the client's socket at once (loopback carries up to 64 KiB
    /// in one segment) and the client reads them in the same order however its reads are timed.
    /// Handshake and alert records go on as they come.
    private static func forwardRecords(from server: Int32, to client: Int32, _ answers: AnswerRecords) {
        var pending: [UInt8] = []
        // The bytes of the current answer's records that have come so far, and how many records.
        var held: [UInt8] = []
        var heldRecords = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(server, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                _ = LoopbackSocket.sendAll(client, held + pending)
                return
            }
            pending += buffer[0..<count]
            var start = 0
            // A record: its content type, two version bytes, and the length of what follows (RFC
            // 5246, section 6.2.1); 23 is application data.
            while pending.count - start >= 5 {
                let end = start + 5 + (Int(pending[start + 3]) << 8 | Int(pending[start + 4]))
                guard pending.count >= end else { break }
                if pending[start] == 23 {
                    held += pending[start..<end]
                    heldRecords += 1
                } else {
                    guard LoopbackSocket.sendAll(client, held + pending[start..<end]) else { return }
                    held = []
                    heldRecords = 0
                }
                start = end
                if let complete = answers.takeIfComplete(held: heldRecords) {
                    guard LoopbackSocket.sendAll(client, held) else { return }
                    held = []
                    heldRecords -= complete
                }
            }
            pending.removeFirst(start)
        }
    }

    /// Copies the server's messages, each answer held back until its ReadyForQuery ('Z') has come
    /// and then written in pieces of a record each; whatever is left when the server closes goes too.
    private static func forwardWholeAnswers(from server: Int32, to feed: Int32, _ answers: AnswerRecords) {
        var pending: [UInt8] = []
        // Where the next message starts that has not been looked at.
        var next = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(server, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                _ = write(answer: pending[...], to: feed, answers)
                return
            }
            pending += buffer[0..<count]
            var answerEnd = 0
            // A message: a type byte, then its length (itself included) as a big-endian Int32.
            while pending.count - next >= 5 {
                let length = pending[(next + 1)...(next + 4)].reduce(0) { $0 << 8 | Int($1) }
                guard pending.count >= next + 1 + length else { break }
                let type = pending[next]
                next += 1 + length
                if type == UInt8(ascii: "Z") { answerEnd = next }
            }
            if answerEnd > 0 {
                guard write(answer: pending[0..<answerEnd], to: feed, answers) else { return }
                pending.removeFirst(answerEnd)
                next -= answerEnd
            }
        }
    }

    /// Writes `answer` to `s_server` one record's worth at a time: it reads up to 16 KiB at once
    /// and so finds exactly one piece each time, and the records fall on the same boundaries
    /// whatever the timing. Their number is told to `answers` first.
    private static func write(answer: ArraySlice<UInt8>, to feed: Int32, _ answers: AnswerRecords) -> Bool {
        guard !answer.isEmpty else { return true }
        answers.append((answer.count + recordSize - 1) / recordSize)
        for start in stride(from: answer.startIndex, to: answer.endIndex, by: recordSize) {
            guard LoopbackSocket.sendAll(feed, answer[start..<min(start + recordSize, answer.endIndex)]) else { return false }
        }
        return true
    }

    /// A connected Unix socket, or nil; tried again for up to `seconds` while nothing listens yet,
    /// unless process `pid` has ended (it was to listen there).
    private static func connect(unixSocket path: String, within seconds: Double = 0, unless pid: pid_t? = nil) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let fd = LoopbackSocket.connect(unixSocket: path) { return fd }
            var status: Int32 = 0
            if let pid, waitpid(pid, &status, WNOHANG) == pid { return nil }
            guard Date() < deadline else { return nil }
            usleep(20_000)
        }
    }

    /// Starts `arguments` (a program on `PATH` first) in `directory`, with `input` as its standard
    /// input and `output` as its standard output; its diagnostics are dropped.
    private static func spawn(_ arguments: [String], in directory: URL, input: Int32, output: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // coreutils `env --chdir`: glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift.
        let argv = (["/usr/bin/env", "--chdir=\(directory.path)"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard result == 0 else { throw ChildProcessError.spawnFailed(String(cString: strerror(result))) }
        return pid
    }
}
