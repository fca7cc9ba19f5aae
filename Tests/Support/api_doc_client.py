#!/usr/bin/env python3
"""Runs docs/api.md's Python client example as written, with the real openapi-python-client.

GeneratedClientTests starts `richpush serve` (with a mock APNs) and runs this script, which:
1. copies openapi.yaml into a scratch directory and runs the `openapi-python-client generate`
   line of docs/api.md's `sh` block there (the `pip install` line is scripts/install-deps.sh's job);
2. runs docs/api.md's `python` block with the server's origin in place of
   `https://push.example.com`, `ADMIN_TOKEN` and `hex_token` defined;
3. registers a device through the generated client and sends one campaign of each audience kind
   through it (each built from a dict with `CampaignRequest.from_dict`, so a kind the generator
   dropped fails here), and round-trips each audience.
It prints one JSON line of what it saw; the Swift test asserts the values.
"""

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys


def blocks(markdown, language):
    return re.findall(r"```" + language + r"\n(.*?)```", markdown, flags=re.S)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", required=True)
    parser.add_argument("--openapi", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--device-token", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()

    if shutil.which("openapi-python-client") is None:
        sys.exit("openapi-python-client is not installed: run bash scripts/install-deps.sh")
    markdown = open(args.docs, encoding="utf-8").read()
    shell = [b for b in blocks(markdown, "sh") if "openapi-python-client generate" in b]
    if len(shell) != 1:
        sys.exit(f"docs/api.md: expected one sh block with `openapi-python-client generate`, found {len(shell)}")
    python = [b for b in blocks(markdown, "python") if "richpush_client" in b]
    if len(python) != 1:
        sys.exit(f"docs/api.md: expected one python block importing richpush_client, found {len(python)}")

    os.makedirs(args.workdir, exist_ok=True)
    shutil.copyfile(args.openapi, os.path.join(args.workdir, "openapi.yaml"))
    generator_output = ""
    for line in shell[0].splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("pip "):
            continue
        run = subprocess.run(shlex.split(line), cwd=args.workdir, capture_output=True, text=True, timeout=300)
        generator_output += run.stdout + run.stderr
        if run.returncode != 0:
            sys.exit(f"`{line}` failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")

    sys.path.insert(0, args.workdir)
    example = python[0]
    if "https://push.example.com" not in example:
        sys.exit("docs/api.md's python block no longer names https://push.example.com")
    example = example.replace("https://push.example.com", args.server)
    scope = {"ADMIN_TOKEN": args.token, "hex_token": args.device_token}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, "docs/api.md", "exec"), scope)
    result, campaign = scope["result"], scope["campaign"]

    import richpush_client.models as models
    from richpush_client import AuthenticatedClient
    from richpush_client.api.campaigns import create_campaign
    from richpush_client.api.devices import register_device

    client = AuthenticatedClient(base_url=args.server, token=args.token)
    device = register_device.sync(
        client=client,
        body=models.DeviceRegistrationRequest.from_dict(
            {"token": args.device_token, "platform": "ios", "user_id": "u-doc", "tags": ["beta"]}
        ),
    )
    audiences = {
        "tokens": {"tokens": [args.device_token]},
        "user_ids": {"user_ids": ["u-doc"]},
        "all": {"all": True, "platform": "ios"},
        "tags": {"tags": {"any": ["beta"]}},
    }
    round_trips, created = {}, {}
    for kind, audience in audiences.items():
        request = models.CampaignRequest.from_dict({"audience": audience, "title": f"Doc {kind}", "body": "Body"})
        round_trips[kind] = {
            "model": type(request.audience).__name__,
            "same": request.to_dict()["audience"] == audience,
        }
        answer = create_campaign.sync(client=client, body=request)
        created[kind] = {
            "type": type(answer).__name__,
            "audience": str(getattr(answer, "audience", None)),
            "campaign_id": getattr(answer, "campaign_id", None),
        }

    print(
        json.dumps(
            {
                "printed": printed.getvalue().strip(),
                "result_type": type(result).__name__,
                "sent": getattr(result, "sent", None),
                "accepted": getattr(result, "accepted", None),
                "campaign_type": type(campaign).__name__,
                "campaign_audience": str(getattr(campaign, "audience", None)),
                "campaign_id": getattr(campaign, "campaign_id", None),
                "device_type": type(device).__name__,
                "audience_models": sorted(n for n in dir(models) if n.startswith("Audience")),
                "round_trips": round_trips,
                "created": created,
                "generator_warnings": [
                    line for line in generator_output.splitlines() if "Unable to process schema" in line
                ],
            }
        )
    )


if __name__ == "__main__":
    main()
