import NIOCore
import NIOEmbedded
import Testing
@testable import LatchkeySMTP

@Suite struct SMTPReplyDecoderTests {
    private func channel(_ tlsSwitch: SMTPReplyDecoder.TLSSwitch) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder(tlsSwitch: tlsSwitch)))
        return channel
    }

    @Test func linesAreSplitAndPassedOn() throws {
        let channel = try channel(.init())
        try channel.writeInbound(ByteBuffer(string: "250-first\r\n250 last\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "250-first\r")
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "250 last\r")
    }

    @Test func plaintextInjectedAfterTheStartTLSReplyIsRefused() throws {
        let tlsSwitch = SMTPReplyDecoder.TLSSwitch()
        let channel = try channel(tlsSwitch)
        tlsSwitch.set(.awaitingReply)
        #expect(throws: SMTPFailure.self) { try channel.writeInbound(ByteBuffer(string: "220 go ahead\r\n250 injected\r\n")) }
    }

    @Test func bytesArrivingBeforeTLSIsInstalledAreRefused() throws {
        let tlsSwitch = SMTPReplyDecoder.TLSSwitch()
        let channel = try channel(tlsSwitch)
        tlsSwitch.set(.awaitingReply)
        try channel.writeInbound(ByteBuffer(string: "220 go ahead\r\n"))
        #expect(tlsSwitch.current == .switching)
        #expect(throws: SMTPFailure.self) { try channel.writeInbound(ByteBuffer(string: "250 late injection\r\n")) }
    }

    @Test func overlongLinesAreRefused() throws {
        let channel = try channel(.init())
        #expect(throws: SMTPFailure.self) {
            try channel.writeInbound(ByteBuffer(string: String(repeating: "x", count: SMTPReplyDecoder.maxLineLength + 10)))
        }
    }
}
