"""How agent replies open, in the languages the model speaks: the first words decide first audio,
so the normalized path is measured (`bench/first_audio.py --openings`) and tested against the raw
path on these. Each is (language, reply opening)."""

from __future__ import annotations

OPENINGS: tuple[tuple[str, str], ...] = (
    ("en", "I'm sorry, I can't find that order."),
    ("en", "Sure, I can help with that."),
    ("en", "Okay. Let me check."),
    ("en", "Hi! How can I help you today?"),
    ("en", "Yes; that works."),
    ("en", "Got it: two tickets."),
    ("en", "Well-known issue, sadly."),
    ("en", "$5 is the delivery fee."),
    ("en", "Dr. Smith will see you now."),
    ("en", "3:30 works for me."),
    ("es", "Claro, puedo ayudarte con eso."),
    ("fr", "Bien sûr, je peux vous aider."),
    ("de", "Natürlich, ich helfe Ihnen gern."),
    ("it", "Certo, posso aiutarti."),
    ("pt", "Claro, posso ajudar com isso."),
    ("ru", "Конечно, я могу помочь."),
    ("zh", "好的，我来帮您查一下。"),
    ("ja", "はい、確認いたします。"),
    ("ko", "네, 확인해 드릴게요."),
)
