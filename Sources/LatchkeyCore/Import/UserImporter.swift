import Foundation

/// Importing accounts from a Parse export or a neutral line file (the CLI's `import`), batch by batch, each batch one
/// transaction, with the same validation the sign-up paths apply.
public struct UserImporter: EngineKernel {
    public let engine: LatchkeyEngine

    public init(engine: LatchkeyEngine) { self.engine = engine }

    var settings: EngineSettings { engine.settings }
}
