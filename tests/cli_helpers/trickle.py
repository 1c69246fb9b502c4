# SPDX-License-Identifier: MIT
"""A bounded slow-request attack on the exporter, and a scraper beside it (the exporter tests' helper):
  trickle.py URL FIRST_SOURCE ADDRESSES PER_ADDRESS SECONDS TRIES
opens PER_ADDRESS connections from each of ADDRESSES source addresses from FIRST_SOURCE up (127.0.0.2,
127.0.0.3, ...: Linux routes all of 127/8 to lo), each sending a request line and then one byte of a
header a second, never its end, for at most SECONDS. Meanwhile scrapes URL from 127.0.0.1, each with a
3 s timeout, up to TRIES times. Prints what happened; exit 0 when a scrape answered 200. The attack goes
on after it until every connection is cut by the server, or SECONDS are up: the last line says how many
were cut ("cut C of N")."""
import ipaddress
import socket
import sys
import time
import urllib.parse
import urllib.request


def main():
    url, first, addresses, per, seconds, tries = sys.argv[1:]
    parts = urllib.parse.urlsplit(url)
    end = time.monotonic() + float(seconds)
    conns = []
    for a in range(int(addresses)):
        source = str(ipaddress.ip_address(first) + a)
        for _ in range(int(per)):
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            c.settimeout(2)
            c.bind((source, 0))
            c.connect((parts.hostname, parts.port))
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            c.setblocking(False)
            conns.append(c)
    cut = set()

    def trickle():  # one byte on each connection still open; those the server ended counted
        for i, c in enumerate(conns):
            if i in cut:
                continue
            try:
                if c.recv(1024) == b"":
                    cut.add(i)
                    continue
            except BlockingIOError:
                pass
            except OSError:
                cut.add(i)
                continue
            try:
                c.send(b"a")
            except OSError:
                cut.add(i)

    answered = None
    for attempt in range(1, int(tries) + 1):
        trickle()
        if time.monotonic() >= end:
            break
        try:
            with urllib.request.urlopen(url, timeout=3) as r:
                if r.status == 200 and b"tally_scrape_duration_seconds " in r.read():
                    answered = attempt
                    break
        except OSError as e:
            print("scrape %d: %s (%d of %d connections cut)" % (attempt, e, len(cut), len(conns)))
        time.sleep(0.2)
    while len(cut) < len(conns) and time.monotonic() < end:
        time.sleep(1)
        trickle()
    for c in conns:
        c.close()
    if answered:
        print("a scrape answered 200 at try %d" % answered)
    else:
        print("no scrape answered in %s tries" % tries)
    print("cut %d of %d" % (len(cut), len(conns)))
    sys.exit(0 if answered else 1)


main()
