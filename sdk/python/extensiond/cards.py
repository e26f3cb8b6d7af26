"""Adaptive Cards as plain dicts (https://adaptivecards.io, version 1.5): the content a
widget sends as its snapshot so that any host can render it. These helpers only build
dicts; any element or property of the schema may be written by hand or passed as a
keyword (`text("Hi", size="large", weight="bolder")`)."""

VERSION = "1.5"


def card(body, actions=None, select_action=None, **properties):
    """An AdaptiveCard with `body` elements, optional `actions` and a `selectAction` (a tap on the card)."""
    result = {"type": "AdaptiveCard", "version": VERSION, "body": list(body), **properties}
    if actions:
        result["actions"] = list(actions)
    if select_action:
        result["selectAction"] = select_action
    return result


def text(value, **properties):
    """A TextBlock; `wrap` is on unless given."""
    return {"type": "TextBlock", "text": value, "wrap": True, **properties}


def image(url, alt="", **properties):
    """An Image from a `data:` URI or an asset URL."""
    return {"type": "Image", "url": url, "altText": alt, **properties}


def container(items, **properties):
    return {"type": "Container", "items": list(items), **properties}


def columns(*columns, **properties):
    """A ColumnSet of `column(...)`s."""
    return {"type": "ColumnSet", "columns": list(columns), **properties}


def column(items, width="stretch", **properties):
    return {"type": "Column", "items": list(items), "width": width, **properties}


def facts(pairs, **properties):
    """A FactSet of (title, value) pairs."""
    return {"type": "FactSet", "facts": [{"title": title, "value": value} for title, value in pairs], **properties}


def open_url(url, title=None):
    """Action.OpenUrl: the host opens the URL through its app (never the widget)."""
    action = {"type": "Action.OpenUrl", "url": url}
    if title is not None:
        action["title"] = title
    return action


def execute(verb, title=None, data=None):
    """Action.Execute: the widget gets an `execute` request with `verb` and `data`."""
    action = {"type": "Action.Execute", "verb": verb}
    if title is not None:
        action["title"] = title
    if data is not None:
        action["data"] = data
    return action
