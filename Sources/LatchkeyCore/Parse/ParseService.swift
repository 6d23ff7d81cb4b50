import Foundation
import Logging

/// The Parse surface (ParseSwift's and the Parse SDKs' wire): users, sessions, `authData`, the second factor, mailed
/// links and cloud functions. Its use cases live here, not on the engine; it reaches the engine as the kernel (store,
/// clock, keys, audit, limits) and for the account rules every surface shares (creating accounts, checking
/// passwords, proving addresses, linking identities, mail).
public struct ParseService: ParseSurface, EngineKernel {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    public var settings: EngineSettings { engine.settings }
}
