#!/usr/bin/env python3
"""Signs in to a running `richpush serve` through its login form in headless Chromium and saves
screenshots of the dashboard and of one push's page (loopback only; used by
scripts/dashboard-screenshot.sh). The DevTools driver is Tests/Support/cdp.py (standard library).

usage: scripts/dashboard-screenshot.py --server http://127.0.0.1:PORT --token TOKEN
                                       --out docs/dashboard.png [--push ID --push-out FILE]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Support"))
from cdp import Browser  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--server", required=True)
p.add_argument("--token", required=True)
p.add_argument("--out", required=True)
p.add_argument("--push")
p.add_argument("--push-out")
p.add_argument("--width", type=int, default=1400)
p.add_argument("--height", type=int, default=1500)
args = p.parse_args()
server = args.server.rstrip("/")

with Browser(args.width, args.height) as browser:
    page = browser.new_page()
    page.navigate(server + "/login")
    status = page.submit_and_wait(
        f"document.querySelector('input[name=token]').value = {json.dumps(args.token)}; document.forms[0].submit()")
    if status != 200 or page.evaluate("location.pathname") != "/":
        sys.exit(f"dashboard-screenshot: signing in failed (HTTP {status}): {page.evaluate('document.body.innerText')[:300]}")
    page.call("Emulation.setDeviceMetricsOverride", {"width": args.width, "height": 600, "deviceScaleFactor": 1, "mobile": False})
    height = int(page.evaluate("document.documentElement.scrollHeight"))
    page.screenshot(args.out, args.width, height)
    print(f"dashboard-screenshot: wrote {args.out} ({args.width}x{height})")
    if args.push and args.push_out:
        from urllib.parse import quote
        page.call("Emulation.setDeviceMetricsOverride", {"width": args.width, "height": 600, "deviceScaleFactor": 1, "mobile": False})
        status = page.navigate(server + "/pushes/" + quote(args.push, safe=""))
        if status != 200:
            sys.exit(f"dashboard-screenshot: /pushes/{args.push} answered {status}")
        height = int(page.evaluate("document.documentElement.scrollHeight"))
        page.screenshot(args.push_out, args.width, height)
        print(f"dashboard-screenshot: wrote {args.push_out} ({args.width}x{height})")
