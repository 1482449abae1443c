"""An operator's chat filter, as TAVOLA_CHAT_FILTER names one (tests/integration/test_chat_moderation.py):
refuses shouting, masks one word."""

from gateway.chat_policy import ChatContext


def calm(text: str, context: ChatContext) -> str | None:
    if len(text) > 3 and text.isupper():
        return None
    return text.replace("darn", "d**n")
