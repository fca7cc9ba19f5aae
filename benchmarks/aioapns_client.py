#!/usr/bin/env python3
"""Sends N notifications with aioapns (PyPI) to a local APNs-compatible server on --connections
connections (default ONE) and prints "RATE <notifications/s> ACCEPTED <n>".

aioapns always dials api.push.apple.com:443; the benchmark points its protocol class at the local
server by setting the class attributes APNS_SERVER / APNS_PORT (the only change), and trusts the
local CA through its ssl_context argument.

At most --concurrency sends are in flight at once (an asyncio.Semaphore, the same bound RichPush
and h2load get as streams). Without it (every send started at once with gather), aioapns's pool is
"completely busy" as soon as the server's stream limit is reached and each of the thousands of
waiting sends polls every 10 ms (asyncio.sleep(0.01) in APNsBaseConnectionPool.acquire) and logs a
warning each time: the client then spends its time polling, which measured aioapns at ~500/s on
h2o, unfairly low.

aioapns opens another connection of its pool (max_connections) only when every open one is busy
(its streams at the server's SETTINGS_MAX_CONCURRENT_STREAMS), so --concurrency should be
connections x streams for --connections to be used.

Usage: aioapns_client.py --port P --ca CA.pem --key AuthKey.p8 --count N --token HEX --payload FILE [--concurrency 100]
                         [--connections 1]
"""
import argparse
import asyncio
import json
import ssl
import time

from aioapns import APNs, NotificationRequest
from aioapns import connection


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--count", type=int, default=20000)
    p.add_argument("--token", required=True)
    p.add_argument("--payload", required=True)
    p.add_argument("--concurrency", type=int, default=100)
    p.add_argument("--connections", type=int, default=1)
    args = p.parse_args()
    connection.APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
    connection.APNsTLSClientProtocol.APNS_PORT = args.port
    with open(args.payload) as f:
        message = json.load(f)
    with open(args.key) as f:
        key = f.read()
    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])  # nghttpd insists on ALPN h2 (APNs does not)
    client = APNs(key=key, key_id="ABC123DEFG", team_id="TEAM123456", topic="com.example.app",
                  use_sandbox=False, max_connections=args.connections, ssl_context=context)
    # Warm up: open the connection.
    await client.send_notification(NotificationRequest(device_token=args.token, message=message))
    bound = asyncio.Semaphore(args.concurrency)

    async def send_one():
        async with bound:
            return await client.send_notification(NotificationRequest(device_token=args.token, message=message))

    start = time.perf_counter()
    results = await asyncio.gather(*(send_one() for _ in range(args.count)))
    elapsed = time.perf_counter() - start
    accepted = sum(1 for r in results if r.is_successful)
    print(f"RATE {args.count / elapsed:.0f} ACCEPTED {accepted}")


if __name__ == "__main__":
    asyncio.run(main())
