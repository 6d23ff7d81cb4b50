import Foundation
import Hummingbird
import LatchkeyCore

/// The outbox: pending, failed (with the relay's answer) and recently sent mail. Addresses are masked unless the
/// operator opens one; a failed mail can be sent again, one or all.
extension Console {
    func addMailRoutes(to console: RouterGroup<LatchkeyRequestContext>) {
        console.get("/mail") { request, context in try await self.mail(request, try await self.visit(request, context)) }
        console.post("/mail/:id/retry") { request, context in
            let (visit, _) = try await self.post(request, context)
            guard let id = Int64(try context.parameters.require("id")) else { throw ConsoleBadInput(message: "error_mail_id") }
            guard try await self.engine.adminRetryMail(id: id, caller: visit.caller) else { throw ConsoleBadInput(message: "error_mail_not_failed") }
            return self.redirect("/console/mail?status=failed", visit, done: "mail_retried")
        }
        console.post("/mail/retry-failed") { request, context in
            let (visit, _) = try await self.post(request, context)
            _ = try await self.engine.adminRetryFailedMail(caller: visit.caller)
            return self.redirect("/console/mail?status=pending", visit, done: "mail_retried")
        }
    }

    private func mail(_ request: Request, _ visit: ConsoleVisit) async throws -> Response {
        let query = request.uri.queryParameters
        guard let status = OutboxRecord.Status(rawValue: query["status"].map(String.init) ?? "failed") else {
            throw ConsoleBadInput(message: "error_mail_status")
        }
        let opened = query["open"].flatMap { Int64($0) }
        let mails = try await engine.adminMail(status: status, limit: 200)
        var values: [String: Any] = [
            "title": word("mail", visit), "section": "mail", "status_\(status.rawValue)": true, "isFailed": status == .failed,
            "none": mails.isEmpty,
            "mails": mails.map { mail -> [String: Any] in
                let open = mail.id != nil && mail.id == opened
                return ["id": mail.id.map(String.init) ?? "", "kind": mail.kind, "subject": mail.subject, "attempts": mail.attempts,
                        "recipient": open ? mail.recipient : EmailAddress.mask(mail.recipient), "masked": !open,
                        "created": ConsoleFormat.time(mail.createdAt), "sent": ConsoleFormat.time(mail.sentAt),
                        "error": mail.lastError ?? "", "status": status.rawValue,
                        "retryable": status == .failed && mail.sealedBody != nil]
            },
        ]
        values["notice"] = notice(request, visit)
        return page("mail", visit, values)
    }
}
