/// Tokens a client presents (continuation, refresh, session tokens): anything longer than this cannot be one of
/// ours, so it is refused before it is hashed or looked up.
public enum SecretToken {
    public static let maxPresentedBytes = 1024
}
