"""U's security review, Low: the hosted pages told which addresses have accounts through the lockout (429 after five
wrong passwords for a known address, 400 forever for an unknown one) and through the per-address mail quota (429 for a
known address's sixth code, 200 for an unknown one's). Now both read the same for both, and the owner of a locked
account learns of it by mail."""
import re
import uuid

import pytest

from harness import Server
from openid_support import PASSWORD, Pages, provider_config
from test_openid import authorize_url

GENEROUS = {f"LATCHKEY_LIMITS_{rule}_REQUESTS": "10000" for rule in ("SIGNUP_PER_IP", "SIGNIN_PER_IP", "CREDENTIAL_PER_IP", "MAIL_PER_IP")}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    secret = folder / "client.secret"
    secret.write_text("a-web-client-secret-for-tests-000000")
    s = Server(config_text=provider_config(str(secret), [4999]),
               env={"LATCHKEY_LIMITS_ENABLED": "true", **GENEROUS}).start()
    yield s
    s.cleanup()


def address(tag):
    return f"{tag}-{uuid.uuid4().hex[:8]}@example.com"


def answer(page):
    """What a visitor can tell: the status and the page's error message."""
    error = re.search(r'<p class="error" role="alert">(.*?)</p>', page.text, re.S)
    return page.status_code, error.group(1) if error else None


def test_a_locked_account_reads_as_a_wrong_password_and_the_owner_is_told(server):
    known = address("known")
    back = Pages(server).sign_up(authorize_url(server)[0], known)
    assert back.status_code == 303, back.text
    unknown = address("nobody")
    known_answers = [answer(Pages(server).sign_in(authorize_url(server)[0], known, f"wrong guess {i}")) for i in range(8)]
    unknown_answers = [answer(Pages(server).sign_in(authorize_url(server)[0], unknown, f"wrong guess {i}")) for i in range(8)]
    wrong = (400, "The email address or password is wrong. You can also sign in with a code sent by email.")
    assert known_answers == unknown_answers == [wrong] * 8, (known_answers, unknown_answers)
    # Locked now: even the right password reads as wrong, and the owner has a mail saying why.
    assert answer(Pages(server).sign_in(authorize_url(server)[0], known, PASSWORD)) == wrong
    locked = [m for m in server.mails(known) if m["kind"] == "account_locked"]
    assert len(locked) == 1 and "is locked" in locked[0]["subject"] and "paused" in locked[0]["text"], server.mails(known)
    assert not server.mails(unknown)


def test_the_per_address_code_quota_answers_known_and_unknown_addresses_alike(server):
    known = address("quota")
    assert Pages(server).sign_up(authorize_url(server)[0], known).status_code == 303
    unknown = address("nobody")

    def code_requests(email):
        statuses = []
        for _ in range(6):
            pages = Pages(server)
            page = pages.get(authorize_url(server)[0])
            answer = pages.submit(page, "/ui/sign-in", email=email, method="code")
            statuses.append(answer.status_code)
            if answer.status_code == 429:  # a page says when to come back, as every throttled answer does
                assert int(answer.headers["Retry-After"]) > 0, answer.headers
        return statuses

    # Five mails an hour to one address; an unknown address's requests count as a known one's mails do. (The known one's
    # sign-up code already took one: which request meets the quota depends on the mails sent, not on an account.)
    for statuses in (code_requests(known), code_requests(unknown)):
        assert statuses[:4] == [200] * 4 and statuses[-1] == 429, statuses
    assert not server.mails(unknown)


def test_password_checks_from_one_address_are_counted_for_known_accounts_too(tmp_path):
    """Every hosted password check counts against `credential_per_ip`, as the native API's do: a known address's wrong
    passwords meet the limit as an unknown address's do (the lockout, far off here, is not what stops them)."""
    secret = tmp_path / "client.secret"
    secret.write_text("a-web-client-secret-for-tests-000000")
    s = Server(config_text=provider_config(str(secret), [4999]),
               env={"LATCHKEY_LIMITS_ENABLED": "true", **GENEROUS, "LATCHKEY_LIMITS_CREDENTIAL_PER_IP_REQUESTS": "6",
                    "LATCHKEY_LIMITS_LOCKOUT_FREE_ATTEMPTS": "100"}).start()
    try:
        known = address("counted")
        assert Pages(s).sign_up(authorize_url(s)[0], known).status_code == 303
        statuses = [Pages(s).sign_in(authorize_url(s)[0], known, f"wrong guess {i}") for i in range(8)]
        limited = [r for r in statuses if r.status_code == 429]
        assert limited and int(limited[0].headers["Retry-After"]) > 0, [r.status_code for r in statuses]
    finally:
        s.cleanup()


def test_codes_typed_on_a_decoy_code_page_are_counted_as_real_ones(tmp_path):
    """An address without an account gets the same code page, and the codes typed on it meet `credential_per_ip` as
    a real account's would: the limit does not tell the two apart."""
    secret = tmp_path / "client.secret"
    secret.write_text("a-web-client-secret-for-tests-000000")
    s = Server(config_text=provider_config(str(secret), [4999]),
               env={"LATCHKEY_LIMITS_ENABLED": "true", **GENEROUS, "LATCHKEY_LIMITS_CREDENTIAL_PER_IP_REQUESTS": "3"}).start()
    try:
        pages = Pages(s)
        page = pages.submit(pages.get(authorize_url(s)[0]), "/ui/sign-in", email=address("decoy"), method="code")
        assert page.status_code == 200, page.text
        statuses = [pages.submit(page, "/ui/code", code=f"{i:08d}").status_code for i in range(5)]
        assert statuses[:3] == [400] * 3 and statuses[3:] == [429, 429], statuses
    finally:
        s.cleanup()
