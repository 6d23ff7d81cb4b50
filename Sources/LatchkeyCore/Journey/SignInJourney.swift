import Foundation

/// The one journey every surface drives: sign-in, sign-up and password reset, step by step (first factor, a second
/// factor when the client's policy makes one due, enrolling one when none is held), with its flows and their
/// continuation tokens. The native API's and the hosted pages' services adopt it; how a journey ends (an app's
/// tokens or a browser session) is the caller's `audience`, never its dialect.
public protocol SignInJourney: EngineKernel {}
