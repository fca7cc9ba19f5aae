#!/usr/bin/env python3
"""A small driver for headless Chromium over the DevTools protocol, standard library only.

Chromium is started with --remote-debugging-pipe: it reads protocol commands from fd 3 and writes
answers and events to fd 4, as JSON messages ended by a NUL byte, so no port and no websocket
library are needed. Used by the tests (Tests/Support/csrf_browser.py) and by
scripts/dashboard-screenshot.sh to sign in through the real login form and look at pages.

    with Browser() as browser:
        page = browser.new_page()
        page.navigate("http://127.0.0.1:8080/login")
        page.evaluate("document.forms[0].token.value = 'TOKEN'")
        page.submit_and_wait("document.forms[0].submit()")
        page.screenshot("out.png", 1400, 1200)
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError("Chromium not found: install Debian's chromium (scripts/install-deps.sh does)")


class ProtocolError(RuntimeError):
    pass


class Browser:
    def __init__(self, width=1400, height=1000):
        self.profile = tempfile.mkdtemp(prefix="richpush-chromium-")
        commands_r, commands_w = os.pipe()
        answers_r, answers_w = os.pipe()
        # Move the child's ends above 9 so the shell can put them on 3 and 4 without clobbering.
        commands_r = self._above_nine(commands_r)
        answers_w = self._above_nine(answers_w)
        args = [chromium_path(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
                f"--window-size={width},{height}", f"--user-data-dir={self.profile}",
                "--remote-debugging-pipe", "about:blank"]
        # bash (dash has no descriptors above 9) puts the pipe ends on the descriptors Chromium expects (3 in, 4 out).
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$@" 3<&{commands_r} 4>&{answers_w} {commands_r}<&- {answers_w}>&-', "bash"] + args,
            pass_fds=(commands_r, answers_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_r)
        os.close(answers_w)
        self.commands = commands_w
        self.answers = answers_r
        self.buffer = b""
        self.next_id = 0
        self.events = []

    @staticmethod
    def _above_nine(fd):
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
        os.close(fd)
        return moved

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.commands, data):]
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise ProtocolError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session=None, predicate=None, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and (session is None or event.get("sessionId") == session) \
                        and (predicate is None or predicate(event.get("params", {}))):
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from Chromium in time")
            ready, _, _ = select.select([self.answers], [], [], left)
            if ready:
                chunk = os.read(self.answers, 1 << 20)
                if not chunk:
                    raise ProtocolError("Chromium closed the DevTools pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def new_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self.commands, self.answers):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser, session):
        self.browser = browser
        self.session = session
        for domain in ("Page.enable", "Network.enable", "Runtime.enable"):
            self.call(domain)

    def call(self, method, params=None, timeout=30):
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def navigate(self, url, timeout=30):
        """Loads `url` and waits for its load event; returns the main document's HTTP status."""
        return self.submit_and_wait(None, url=url, timeout=timeout)

    def submit_and_wait(self, expression, url=None, timeout=30):
        """Runs `expression` (a form submit, a click) or navigates to `url`, waits for the next
        page's load event, and returns the HTTP status of that document."""
        self.browser.events = [e for e in self.browser.events if e.get("sessionId") != self.session]
        if url is not None:
            self.call("Page.navigate", {"url": url})
        else:
            self.evaluate(expression)
        response = self.browser.wait_event(
            "Network.responseReceived", self.session, lambda p: p.get("type") == "Document", timeout)
        self.browser.wait_event("Page.loadEventFired", self.session, timeout=timeout)
        return response["params"]["response"]["status"]

    def evaluate(self, expression, await_promise=False, timeout=30):
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": await_promise,
                                                "returnByValue": True}, timeout=timeout)
        if "exceptionDetails" in result:
            raise ProtocolError(f"{expression[:80]}: {result['exceptionDetails'].get('text')}")
        return result.get("result", {}).get("value")

    def wait_until(self, expression, timeout=30):
        """Evaluates `expression` every 50 ms until it is true."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(expression):
            if time.monotonic() > deadline:
                raise TimeoutError(f"never true: {expression}")
            time.sleep(0.05)

    def responses(self, url_part):
        """HTTP statuses of every response seen so far whose URL contains `url_part` (events are
        consumed)."""
        found = [e for e in self.browser.events
                 if e.get("sessionId") == self.session and e.get("method") == "Network.responseReceived"
                 and url_part in e["params"]["response"]["url"]]
        for e in found:
            self.browser.events.remove(e)
        return [e["params"]["response"]["status"] for e in found]

    def pump(self, seconds):
        """Reads events for `seconds` (so responses of background requests are seen)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.browser.events.append(self.browser._read(deadline))
        except TimeoutError:
            pass

    def screenshot(self, path, width, height):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        data = self.call("Page.captureScreenshot", {"format": "png"}, timeout=60)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
