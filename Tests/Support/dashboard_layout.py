#!/usr/bin/env python3
"""Measures the dashboard's layout in headless Chromium at a phone's width and a desktop's.

Signs in through the login form, then for each width (390 px as an iPhone, mobile emulation; 1280
px desktop) loads the dashboard and one push's page and reports what the layout came to:
the document's scroll width (a page wider than the screen scrolls sideways as a whole), the
number of key-figure card columns, how many panel columns the chart grid has, whether the pushes
table is wider than its own scroll box, the rendered width of the wide charts and of their
smallest text.

Prints one JSON object: {"390": {...}, "1280": {...}}.

Usage: dashboard_layout.py --server http://127.0.0.1:PORT --token ADMIN_TOKEN --push PUSH_ID
"""
import argparse
import json
import os
import sys
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

MEASURE = """(() => {
  const distinct = (xs) => [...new Set(xs.map((x) => Math.round(x)))].length;
  const cards = [...document.querySelectorAll('.cards .card')];
  const gridPanels = [...document.querySelectorAll('section.grid')].map((g) =>
      distinct([...g.children].map((p) => p.getBoundingClientRect().left)));
  const scroll = document.querySelector('.scroll');
  const wide = [...document.querySelectorAll('svg.wide')].map((s) => s.getBoundingClientRect().width);
  const svgText = [...document.querySelectorAll('svg text')].map((t) => t.getBoundingClientRect().height).filter((h) => h > 0);
  return JSON.stringify({
    viewport: window.innerWidth,
    scroll_width: document.documentElement.scrollWidth,
    card_columns: distinct(cards.slice(0, 6).map((c) => c.getBoundingClientRect().left)),
    grid_columns: gridPanels,
    table_scrolls_in_its_box: scroll ? scroll.scrollWidth > scroll.clientWidth : null,
    wide_chart_widths: wide,
    smallest_chart_text_px: svgText.length ? Math.min(...svgText) : null,
  });
})()"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--push", required=True)
    args = p.parse_args()
    server = args.server.rstrip("/")
    result = {}
    with Browser(1280, 900) as browser:
        page = browser.new_page()
        page.navigate(server + "/login")
        page.submit_and_wait(
            f"document.querySelector('input[name=token]').value = {json.dumps(args.token)}; document.forms[0].submit()")
        if page.evaluate("location.pathname") != "/":
            sys.exit("dashboard_layout: signing in failed")
        for width, mobile in [(390, True), (1280, False)]:
            page.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": mobile})
            measured = {}
            for name, path in [("dashboard", "/"), ("push", "/pushes/" + quote(args.push, safe=""))]:
                status = page.navigate(server + path)
                if status != 200:
                    sys.exit(f"dashboard_layout: {path} answered {status}")
                measured[name] = json.loads(page.evaluate(MEASURE))
            result[str(width)] = measured
    print(json.dumps(result))


if __name__ == "__main__":
    main()
