import JOSE

/// RSA keys shared by every test target. Generation is the slowest step of most key and token
/// tests, so each key is made once per test process and reused.
public enum TestRSAKeys {
    public static let a: RSAPrivateKey = try! RSAPrivateKey.generate()
    public static let b: RSAPrivateKey = try! RSAPrivateKey.generate()
    public static let c: RSAPrivateKey = try! RSAPrivateKey.generate()
}
