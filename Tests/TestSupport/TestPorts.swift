/// Ports for servers a test starts as child processes, which must be told their port before
/// they listen (an in-process server binds port 0 instead). Drawn at random from a range below
/// Linux's ephemeral ports (32768 and up), so two tests running at once rarely draw the same one.
public enum TestPorts {
    public static func random() -> Int { Int.random(in: 20_000..<32_000) }

    /// `count` different random ports, for a test that starts several servers at once.
    public static func distinct(_ count: Int) -> [Int] {
        var ports: [Int] = []
        while ports.count < count {
            let port = random()
            if !ports.contains(port) { ports.append(port) }
        }
        return ports
    }
}
