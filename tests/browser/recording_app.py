#!/usr/bin/env python3
"""A containing app that records the URLs it is launched with (its last argument), then stays."""
import sys
import time

with open(sys.argv[1], "a") as log:
    log.write(" ".join(sys.argv[2:]) + "\n")
time.sleep(1000)
