import Foundation

/// A minimal HTTP/1.1 client over loopback for end-to-end tests of a server in another process:
/// plain sockets, so a test depends on nothing but the server it drives.
public enum TestHTTP {
    /// The status code of `GET path` on 127.0.0.1:`port`, or nil if nothing answered.
    public static func status(port: Int, path: String) async -> Int? {
        await get(port: port, path: path)?.status
    }
}
