import Foundation

/// A QR code (ISO/IEC 18004, model 2) for an authenticator's `otpauth://` URI, drawn on the server so the page needs
/// no script and sends the secret nowhere: byte mode, error correction level M, versions 1 to 15 (up to 412 bytes).
/// The construction follows Project Nayuki's reference encoder; a real decoder reads it back in the tests.
struct QRCode {
    let size: Int
    private(set) var modules: [[Bool]]
    private var isFunction: [[Bool]]

    // Level M, by version (index 0 unused).
    private static let eccPerBlock = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24]
    private static let blockCount = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10]

    init?(text: String) {
        let data = Array(text.utf8)
        guard let version = (1...15).first(where: { 4 + ($0 < 10 ? 8 : 16) + data.count * 8 <= Self.dataCodewords($0) * 8 }) else { return nil }
        size = version * 4 + 17
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        isFunction = modules
        drawFunctionPatterns(version)
        drawCodewords(Self.withErrorCorrection(Self.dataBits(data, version: version), version: version))
        var best = (mask: 0, penalty: Int.max)
        for mask in 0..<8 {
            var candidate = self
            candidate.applyMask(mask)
            candidate.drawFormatBits(mask)
            let penalty = candidate.penalty()
            if penalty < best.penalty { best = (mask, penalty) }
        }
        applyMask(best.mask)
        drawFormatBits(best.mask)
    }

    /// The code as an SVG image in a `data:` URI (allowed by the pages' `img-src 'self' data:`), with a quiet zone.
    var svgDataURI: String {
        var path = ""
        for y in 0..<size { for x in 0..<size where modules[y][x] { path += "M\(x + 4),\(y + 4)h1v1h-1z" } }
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size + 8) \(size + 8)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path d=\"\(path)\" fill=\"#000\"/></svg>"
        return "data:image/svg+xml;base64," + Data(svg.utf8).base64EncodedString()
    }

    // MARK: Data

    private static func rawDataModules(_ version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let align = version / 7 + 2
            result -= (25 * align - 10) * align - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    private static func dataCodewords(_ version: Int) -> Int { rawDataModules(version) / 8 - eccPerBlock[version] * blockCount[version] }

    /// Mode, count, the bytes, the terminator and the pad bytes, as codewords.
    private static func dataBits(_ data: [UInt8], version: Int) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) { for i in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> i) & 1 == 1) } }
        append(0b0100, 4)
        append(data.count, version < 10 ? 8 : 16)
        for byte in data { append(Int(byte), 8) }
        let capacity = dataCodewords(version) * 8
        append(0, min(4, capacity - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var pad = 0xEC
        while bits.count < capacity { append(pad, 8); pad ^= 0xEC ^ 0x11 }
        return stride(from: 0, to: bits.count, by: 8).map { start in bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) } }
    }

    /// Splits into blocks, appends each block's Reed-Solomon codewords, and interleaves.
    private static func withErrorCorrection(_ data: [UInt8], version: Int) -> [UInt8] {
        let blocks = blockCount[version], eccLength = eccPerBlock[version], raw = rawDataModules(version) / 8
        let shortBlocks = blocks - raw % blocks, shortLength = raw / blocks
        let divisor = reedSolomonDivisor(eccLength)
        var split: [[UInt8]] = [], offset = 0
        for i in 0..<blocks {
            let length = shortLength - eccLength + (i < shortBlocks ? 0 : 1)
            var block = Array(data[offset..<offset + length])
            offset += length
            let ecc = reedSolomonRemainder(block, divisor)
            if i < shortBlocks { block.append(0) }
            split.append(block + ecc)
        }
        var result: [UInt8] = []
        for i in 0..<split[0].count {
            for (j, block) in split.enumerated() where i != shortLength - eccLength || j >= shortBlocks { result.append(block[i]) }
        }
        return result
    }

    private static func reedSolomonDivisor(_ degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree - 1) + [1]
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    private static func reedSolomonRemainder(_ data: [UInt8], _ divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in 0..<result.count { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }

    /// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1.
    private static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for i in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= Int((y >> UInt8(i)) & 1) * Int(x)
        }
        return UInt8(z)
    }

    // MARK: Modules

    private mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y][x] = dark
        isFunction[y][x] = true
    }

    private mutating func drawFunctionPatterns(_ version: Int) {
        for i in 0..<size { set(6, i, i % 2 == 0); set(i, 6, i % 2 == 0) }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 { for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                let distance = max(abs(dx), abs(dy))
                set(x + dx, y + dy, distance != 2 && distance != 4)
            } }
        }
        let positions = alignmentPositions(version)
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                let nearFinder = (i == 0 && j == 0) || (i == 0 && j == positions.count - 1) || (i == positions.count - 1 && j == 0)
                guard !nearFinder else { continue }
                for dy in -2...2 { for dx in -2...2 { set(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) } }
            }
        }
        drawFormatBits(0)  // reserves the format areas; redrawn with the chosen mask
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for i in 0..<18 {
            let dark = (bits >> i) & 1 == 1, a = size - 11 + i % 3, b = i / 3
            set(a, b, dark); set(b, a, dark)
        }
    }

    private func alignmentPositions(_ version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var result = [6], position = size - 7
        for _ in 0..<count - 1 { result.insert(position, at: 1); position -= step }
        return result
    }

    private mutating func drawFormatBits(_ mask: Int) {
        let data = 0 << 3 | mask  // level M is 00
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0...5 { set(8, i, bit(i)) }
        set(8, 7, bit(6)); set(8, 8, bit(7)); set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
    }

    private mutating func drawCodewords(_ data: [UInt8]) {
        var i = 0, right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j, upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    if !isFunction[y][x] && i < data.count * 8 {
                        modules[y][x] = (data[i >> 3] >> UInt8(7 - (i & 7))) & 1 == 1
                        i += 1
                    }
                }
            }
            right -= 2
        }
    }

    private mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y][x] {
                let invert = switch mask {
                case 0: (x + y) % 2 == 0
                case 1: y % 2 == 0
                case 2: x % 3 == 0
                case 3: (x + y) % 3 == 0
                case 4: (x / 3 + y / 2) % 2 == 0
                case 5: x * y % 2 + x * y % 3 == 0
                case 6: (x * y % 2 + x * y % 3) % 2 == 0
                default: ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { modules[y][x].toggle() }
            }
        }
    }

    /// The standard's penalty for runs of one colour, 2×2 blocks and an unbalanced dark share (the finder-like rule
    /// left out): the mask with the lowest is drawn, so cameras read it readily.
    private func penalty() -> Int {
        var result = 0
        for line in 0..<size {
            var rowRun = 1, columnRun = 1
            for i in 1..<size {
                if modules[line][i] == modules[line][i - 1] { rowRun += 1 } else { rowRun = 1 }
                if rowRun == 5 { result += 3 } else if rowRun > 5 { result += 1 }
                if modules[i][line] == modules[i - 1][line] { columnRun += 1 } else { columnRun = 1 }
                if columnRun == 5 { result += 3 } else if columnRun > 5 { result += 1 }
            }
        }
        for y in 0..<size - 1 { for x in 0..<size - 1 {
            let colour = modules[y][x]
            if colour == modules[y][x + 1] && colour == modules[y + 1][x] && colour == modules[y + 1][x + 1] { result += 3 }
        } }
        let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }, total = size * size
        result += (abs(dark * 20 - total * 10) + total - 1) / total * 10
        return result
    }
}
