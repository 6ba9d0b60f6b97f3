/// A benchmark that cannot run as set up; ArgumentParser prints the text and exits non-zero.
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
