/// How a command opens the database, whichever store it is: `serve`, `migrate` and `import` create and migrate
/// it; operator commands open only one that exists, read-only where they only read.
public enum StoreAccess: Sendable { case create, existing, readOnly }
