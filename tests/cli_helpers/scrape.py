# SPDX-License-Identifier: MIT
"""HTTP for the exporter tests, without curl: one GET, or several scrapers at once.
  scrape.py get URL                  the body on stdout; exit 1 unless 200
  scrape.py wait URL SECONDS         retries until the URL answers 200 (exit 1 when it never did)
  scrape.py hammer URL THREADS N     THREADS scrapers, N scrapes each, in parallel; every answer must be
                                     200 and end with the exposition's last family; prints the count
  scrape.py query PROM EXPR          a Prometheus instant query: one "labels value" line per result
  scrape.py slow URL SLOW N          SLOW clients that send half a request and then nothing stay
                                     connected while N scrapes are made: every one must answer 200
  scrape.py status URL [USER:PASS]   the HTTP status of a GET (401 included), with basic authentication
                                     when given; an https URL is checked against the PEM in $SCRAPE_CA"""
import base64
import json
import os
import socket
import ssl
import sys
import urllib.error
import threading
import time
import urllib.parse
import urllib.request


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode("utf-8")


def main():
    cmd = sys.argv[1]
    if cmd == "get":
        status, body = get(sys.argv[2])
        sys.stdout.write(body)
        sys.exit(0 if status == 200 else 1)
    if cmd == "wait":
        end = time.monotonic() + float(sys.argv[3])
        while time.monotonic() < end:
            try:
                if get(sys.argv[2], timeout=2)[0] == 200:
                    return
            except Exception:
                pass
            time.sleep(0.05)
        sys.exit("%s never answered" % sys.argv[2])
    if cmd == "hammer":
        url, threads, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        failures, done = [], [0]
        lock = threading.Lock()

        def scraper():
            for _ in range(n):
                try:
                    status, body = get(url)
                    ok = status == 200 and "tally_scrape_duration_seconds " in body
                except Exception as e:  # a refused or cut connection is a failure too
                    ok, status = False, repr(e)
                with lock:
                    done[0] += 1
                    if not ok:
                        failures.append(status)

        pool = [threading.Thread(target=scraper) for _ in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        print(done[0])
        if failures:
            sys.exit("%d of %d scrapes failed: %s" % (len(failures), done[0], failures[:3]))
        return
    if cmd == "slow":
        parts = urllib.parse.urlsplit(sys.argv[2])
        idle = []
        for _ in range(int(sys.argv[3])):
            c = socket.create_connection((parts.hostname, parts.port), timeout=10)
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
            idle.append(c)
        for _ in range(int(sys.argv[4])):
            status, body = get(sys.argv[2])
            if status != 200 or "tally_scrape_duration_seconds " not in body:
                sys.exit("a scrape beside the slow clients failed: %s" % status)
        for c in idle:
            c.close()
        return
    if cmd == "status":
        req = urllib.request.Request(sys.argv[2])
        if len(sys.argv) > 3:
            req.add_header("Authorization", "Basic " + base64.b64encode(sys.argv[3].encode()).decode())
        ctx = ssl.create_default_context(cafile=os.environ["SCRAPE_CA"]) if "SCRAPE_CA" in os.environ else None
        try:
            with urllib.request.urlopen(req, timeout=10, context=ctx) as r:
                print(r.status)
        except urllib.error.HTTPError as e:
            print(e.code)
        return
    if cmd == "query":
        url = sys.argv[2] + "/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[3]})
        doc = json.loads(get(url)[1])
        if doc.get("status") != "success":
            sys.exit("query failed: %s" % doc)
        for r in doc["data"]["result"]:
            labels = ",".join("%s=%s" % kv for kv in sorted(r["metric"].items()))
            print("{%s} %s" % (labels, r["value"][1]))
        return
    sys.exit("unknown command " + cmd)


main()
