#!/usr/bin/env python3
"""An extensiond widget in Python with the SDK (sdk/python, `pip install ./sdk/python`).

Each update answers an Adaptive Card that counts its updates, with a timeline of the next
ten seconds (the supervisor shows each entry at its date without asking again), a button
that toggles the seconds (`Action.Execute`, which reaches `execute`) and a link its app
opens (`Action.OpenUrl`). It exits on `terminate` or when the supervisor closes fd 3.
"""

import datetime
import sys

import extensiond
from extensiond import cards

TIMELINE_SECONDS = 10  # entries of each timeline, one a second (at most 256)


class HelloWidget(extensiond.Widget):
    def __init__(self):
        self.updates = 0
        self.seconds = True

    def card(self, request, when):
        clock = when.strftime("%H:%M:%S" if self.seconds else "%H:%M")
        lines = [cards.text("Hello from Python, update #%d" % self.updates, weight="bolder"), cards.text(clock)]
        if request.mode == "expanded":
            width, height = request.max_size
            lines.append(cards.text("%s, up to %dx%d" % (request.reason, width, height), isSubtle=True))
        toggle = cards.execute("toggleSeconds", "Hide seconds" if self.seconds else "Show seconds")
        return cards.card(lines, actions=[toggle, cards.open_url("demo://details?from=python", "Details")])

    def update(self, request, context):
        self.updates += 1
        now = datetime.datetime.now(datetime.timezone.utc)
        later = [now + datetime.timedelta(seconds=s) for s in range(1, TIMELINE_SECONDS + 1)]
        return extensiond.NewData(self.card(request, now), timeline=[(when, self.card(request, when)) for when in later],
                                  reload=extensiond.AT_END)

    def execute(self, request, context):
        if request.verb == "toggleSeconds":
            self.seconds = not self.seconds
        return self.update(request, context)


if __name__ == "__main__":
    sys.exit(extensiond.run(HelloWidget()))
