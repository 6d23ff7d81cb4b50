import Hummingbird
import NIOCore

/// `/favicon.ico` on both listeners: a 16×16 key, drawn from the rows below into an ICO (one 32-bit bitmap), so
/// browsers stop asking and logs stop showing a 404 on every first visit.
enum Favicon {
    /// `#` is the accent, `.` transparent; the top row first.
    static let rows = [
        "................", "................", "...######.......", "..##....##......",
        "..#..##..#......", "..#..##..#......", "..##....##......", "...######.......",
        ".....##.........", ".....##.........", ".....####.......", ".....##.........",
        ".....####.......", ".....##.........", "................", "................",
    ]

    static let bytes: ByteBuffer = {
        let size = 16, pixels = size * size * 4, mask = size * 4  // the AND mask: 1 bit a pixel, rows padded to 4 bytes
        var bitmap: [UInt8] = []
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        // BITMAPINFOHEADER: the height counts the colour rows and the mask's, as ICO asks.
        bitmap += le32(40) + le32(size) + le32(size * 2) + le16(1) + le16(32) + le32(0) + le32(pixels + mask) + le32(0) + le32(0) + le32(0) + le32(0)
        for row in rows.reversed() {  // bottom-up
            for cell in row { bitmap += cell == "#" ? [0xB0, 0x5C, 0x1E, 0xFF] : [0, 0, 0, 0] }  // BGRA, #1E5CB0
        }
        bitmap += [UInt8](repeating: 0, count: mask)  // alpha decides; the mask is all "draw"
        let header = le16(0) + le16(1) + le16(1) + [UInt8(size), UInt8(size), 0, 0] + le16(1) + le16(32) + le32(bitmap.count) + le32(22)
        return ByteBuffer(bytes: header + bitmap)
    }()

    static func addRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get("/favicon.ico") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/x-icon", .cacheControl: "public, max-age=86400"], body: .init(byteBuffer: bytes))
        }
    }
}
