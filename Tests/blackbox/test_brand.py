"""`pages.brand`: the operator's name, logo and accent colour on the hosted pages (in Chromium) and in the mails."""
import struct
import zlib

import pytest
import requests
from selenium.webdriver.common.by import By

from browser_support import browser  # noqa: F401 (a fixture)
from conftest import fresh
from harness import ALL_TYPES, CLIENT_ID, Server
from test_config_and_mail import run_expecting_config_error

ACCENT = "#c2410c"


def png():
    """A 1×1 PNG: the bytes a logo file starts with are what decides its type."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def branded(tmp_path_factory):
    logo = tmp_path_factory.mktemp("brand") / "logo.png"
    logo.write_bytes(png())
    s = Server(env={"LATCHKEY_PAGES_BRAND_NAME": "Acme Books", "LATCHKEY_PAGES_BRAND_LOGO_FILE": str(logo),
                    "LATCHKEY_PAGES_BRAND_ACCENT": ACCENT}).start()
    yield s
    s.cleanup()


def test_the_pages_carry_the_name_logo_and_accent(branded, browser):  # noqa: F811
    browser.get(branded.base + "/oauth2/v2.0/authorize?client_id=not-registered")
    header = browser.find_element(By.CSS_SELECTOR, "header.brand")
    assert header.text == "Acme Books" and browser.title.endswith(" · Acme Books")
    image = header.find_element(By.TAG_NAME, "img")
    assert image.get_attribute("alt") == "Acme Books logo"
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) == 1  # it loaded
    accent = browser.execute_script("return getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
    assert accent == ACCENT
    logo = branded.get("/ui/brand/logo")
    assert logo.status_code == 200 and logo.headers["Content-Type"] == "image/png" and logo.content == png()
    assert logo.headers["X-Content-Type-Options"] == "nosniff" and "sandbox" in logo.headers["Content-Security-Policy"]


def test_the_mails_carry_the_name_logo_and_accent(branded):
    address = fresh("brand")
    r = branded.post("/signup/v1.0/start", {"client_id": CLIENT_ID, "username": address, "challenge_type": ALL_TYPES})
    branded.post("/signup/v1.0/challenge", {"client_id": CLIENT_ID, "continuation_token": r.json()["continuation_token"],
                                            "challenge_type": ALL_TYPES})
    subjects = branded.wait_for_subject(address, "Acme Books")
    assert all("Latchkey" not in s for s in subjects)
    html = branded.mails(address)[-1]["html"]
    assert f'src="{branded.base}/ui/brand/logo"' in html and f"color:{ACCENT}" in html and "Acme Books" in html


def test_without_a_brand_the_pages_are_unchanged(server):
    page = server.get("/oauth2/v2.0/authorize?client_id=not-registered").text
    assert "<header" not in page and "/ui/brand/logo" not in page
    assert server.get("/ui/brand/logo").status_code == 404
    assert requests.post(server.base + "/ui/brand/logo", timeout=10).status_code == 405  # a page route, with or without a logo
    css = server.get("/ui/style.css").text
    assert "--accent: #0b57d0;" in css and css.count("--accent:") == 1  # the built-in blue, not replaced


def test_a_bad_brand_is_named_at_start(tmp_path):
    # Only a colour: the accent is written into the served style sheet.
    err = run_expecting_config_error(env={"LATCHKEY_PAGES_BRAND_ACCENT": "red; } body { display: none"})
    assert "pages.brand.accent: must be a colour as #rgb or #rrggbb" in err
    text = tmp_path / "logo.txt"
    text.write_text("not an image")
    assert "is not a PNG, JPEG, WebP or SVG image" in run_expecting_config_error(env={"LATCHKEY_PAGES_BRAND_LOGO_FILE": str(text)})
    big = tmp_path / "big.png"
    big.write_bytes(png() + b"\0" * 300_000)
    assert "a logo may have at most 262144" in run_expecting_config_error(env={"LATCHKEY_PAGES_BRAND_LOGO_FILE": str(big)})
    assert "cannot read" in run_expecting_config_error(env={"LATCHKEY_PAGES_BRAND_LOGO_FILE": str(tmp_path / "missing.png")})
