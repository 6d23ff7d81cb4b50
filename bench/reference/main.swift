// The framework's own ceiling for bench/suite.py: a bare Hummingbird app on the same dependency versions as
// Latchkey (it is a target of the same package), no middleware, answering `/health/live` with the same body and
// headers Latchkey sends. Usage: reference-server PORT
import HTTPTypes
import Hummingbird

let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 8080
let body = ByteBuffer(string: #"{"status":"ok"}"#)
let headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store", HTTPField.Name("Pragma")!: "no-cache"]
let router = Router()
router.get("/health/live") { _, _ in Response(status: .ok, headers: headers, body: .init(byteBuffer: body)) }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "reference"))
try await app.runService()
