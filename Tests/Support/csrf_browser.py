#!/usr/bin/env python3
"""Cross-site request forgery against `richpush serve`, in a real headless Chromium.

The admin signs in through the dashboard's login form (a session cookie, SameSite=Lax). Then the
same browser opens a page served from ANOTHER PORT of the same host (same-site, so the cookie goes
along with its requests, but not same-origin) that tries to send a push through the admin's
session, as an attacker would:
  1. fetch(POST /v1/pushes, mode no-cors, credentials include, text/plain JSON body);
  2. an auto-submitted <form enctype="text/plain"> POST to /v1/pushes whose body is JSON.
Last, a control: the same session on the dashboard's own origin posts a push (application/json),
which must work, so the refusals above are the origin check and not a missing login.

Prints one JSON object: logged_in, dashboard_status, fetch_statuses, form_status, form_body,
control_status, control_body.

Usage: csrf_browser.py --server http://127.0.0.1:PORT --token ADMIN_TOKEN --device-token HEX
"""
import argparse
import http.server
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402


def attacker_pages(server, device_token):
    payload = json.dumps({"push_id": "csrf-fetch", "tokens": [device_token], "title": "pwned", "body": "sent by another site"})
    fetch_page = f"""<!doctype html><title>cute cats</title><p>cats</p>
<script>
window.attack = fetch({json.dumps(server + "/v1/pushes")}, {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(payload)}}}).then(() => "sent", e => "error " + e);
</script>"""
    # text/plain form trick: name + "=" + value concatenate into a JSON document.
    name = json.dumps({"push_id": "csrf-form", "tokens": [device_token], "title": "pwned", "body": "form", "x": ""})[:-2]
    form_page = f"""<!doctype html><title>more cats</title>
<form id="f" method="POST" action="{server}/v1/pushes" enctype="text/plain">
<input type="hidden" name='{name}' value='"}}'></form>
<script>document.getElementById("f").submit()</script>"""
    return {"/fetch.html": fetch_page, "/form.html": form_page}


def serve_attacker(pages):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = pages.get(self.path)
            if body is None:
                self.send_error(404)
                return
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--device-token", required=True)
    args = p.parse_args()
    server = args.server.rstrip("/")
    httpd, attacker = serve_attacker(attacker_pages(server, args.device_token))
    result = {"attacker_origin": attacker}
    with Browser() as browser:
        page = browser.new_page()
        # The admin signs in through the real form.
        page.navigate(server + "/login")
        result["dashboard_status"] = page.submit_and_wait(
            f"document.querySelector('input[name=token]').value = {json.dumps(args.token)}; document.forms[0].submit()")
        result["logged_in"] = page.evaluate("location.pathname") == "/" and "Pushes" in page.evaluate("document.body.innerText")

        # Attack 1: fetch from the other port.
        page.navigate(attacker + "/fetch.html")
        result["fetch_outcome"] = page.evaluate("window.attack", await_promise=True)
        page.pump(0.5)
        result["fetch_statuses"] = page.responses("/v1/pushes")

        # Attack 2: an auto-submitted form from the other port (the browser then shows the answer).
        page.call("Page.navigate", {"url": attacker + "/form.html"})
        response = browser.wait_event("Network.responseReceived", page.session,
                                      lambda p: p["response"]["url"].endswith("/v1/pushes"))
        page.wait_until("location.href.endsWith('/v1/pushes') && document.readyState === 'complete'")
        result["form_status"] = response["params"]["response"]["status"]
        result["form_url"] = page.evaluate("location.href")
        result["form_body"] = page.evaluate("document.body.innerText")

        # Control: the dashboard's own origin may post (CSP blocks scripts on our pages, so the
        # test lifts it for this tab to run its fetch).
        page.call("Page.setBypassCSP", {"enabled": True})
        page.navigate(server + "/")
        control = page.evaluate(
            "fetch('/v1/pushes', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify("
            + json.dumps({"push_id": "same-origin-control", "tokens": [args.device_token], "title": "ok", "body": "ok"})
            + ")}).then(async r => [r.status, await r.text()])", await_promise=True)
        result["control_status"], result["control_body"] = control[0], control[1]
    httpd.shutdown()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
