"""Per-delta latency of the streaming normalizer on LLM-style replies.

Each reply is split into deltas of 2-6 characters, the size of BPE tokens, and fed to a fresh
StreamingNormalizer; every `push` (and the final `flush`) is timed. wetext's FSTs are loaded
before timing (as a server does at start-up); by default the span cache is cleared before each
reply so a number seen in an earlier reply is not free.

    .venv/bin/python bench/tn_bench.py [--rounds 20] [--seed 0] [--warm-cache] [--lexicon]

`--lexicon` times the same replies with a pronunciation dictionary of 1,000 rules: 990 literal
words that do not occur in the replies, the replies' own product names and acronyms, and
three regular expressions.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from functools import partial

from voice_tts.tn import Lexicon, StreamingNormalizer, warm_up
from voice_tts.tn.wetext_calls import normalize_span

# name → (the turn's language, the reply)
REPLIES = {
    "en-markdown": ("auto",
        "## Summary\n"
        "Sure! Here's what I found about **Qwen3-TTS-1.7B** (released 2026-03-04):\n\n"
        "- It costs $12.50 per hour on a 24 GB GPU, about 3.5x cheaper than v0.2.1.\n"
        "- Latency dropped by 37.5% to 120 ms; see [the docs](https://example.com/docs?id=3).\n"
        "- Dr. Smith's team at 221B Baker St. reported 1,234,567 requests in the 1990s-style benchmark.\n\n"
        "1. Install it with `pip install voice-tts`.\n"
        "2. Call +1 (415) 555-0100 or email support@example.org before 5pm.\n"
        "Revenue hit $1.5 million last year, up from €900k. 🎉"
    ),
    "en-plain": ("auto",
        "Of course. The meeting is on March 3, 2024 at 10:30 am in room 42, and it should take "
        "about 45 minutes. Bring 3 copies of the report, which covers pages 3-5 and the 2025 "
        "forecast. If anything changes, I will let you know by Friday. Thanks for your patience, "
        "and have a great day!"
    ),
    "zh": ("auto",
        "好的，我帮你查了一下。今年是2026年3月4日，价格是12.5元，共计￥1,234.56，约$20。"
        "增长了12.5%，下降-3%。电话是13812345678，报警打110。需要3-5天，下午3:30开会，"
        "温度-3.5℃，我有2个苹果和12.9英寸的屏幕。**重点**：\n- 第一项\n- 第二项\n版本v0.2.1发布了。"
    ),
    "de": ("de",
        "Gern! Ihre Bestellung Nr. 4711 kostet 25,50 € und kommt am 3. Mai zwischen 14:30 und 16 Uhr. "
        "Das Paket wiegt 2,5 kg, und Sie sparen 15 % gegenüber dem 1. Angebot vom 02.03.2025. "
        "Bei Fragen erreichen Sie uns unter +49 30 1234567 oder per E-Mail an service@beispiel.de, "
        "z.B. bis 18 Uhr. Insgesamt haben wir schon 10.000 Kunden beliefert."
    ),
    "fr": ("fr",
        "Bien sûr ! Votre commande n° 4711 coûte 25,50 € et arrive le 1er mai entre 14h30 et 16h. "
        "Le colis pèse 2,5 kg et vous économisez 15 % par rapport à la 2e offre du 02/03/2025. "
        "Pour toute question, appelez le 01 23 45 67 89 ou écrivez à service@exemple.fr, "
        "etc. Nous avons déjà livré 10 000 clients."
    ),
    "it": ("it",
        "Certo! Il suo ordine n. 4711 costa 25,50 € e arriva il 3 maggio tra le 14:30 e le 16:00. "
        "Il pacco pesa 2,5 kg e risparmia il 15 % rispetto alla 2ª offerta del 02/03/2025. "
        "Per domande chiami il +39 06 1234 5678 o scriva a servizio@esempio.it, ecc. "
        "Abbiamo già servito 10.000 clienti."
    ),
    "mixed": ("auto",
        "我今天买了3个iPhone 15 Pro，花了$999。Meeting在3pm开始，大约需要1.5 hours。"
        "用GPT-4o生成了2026年的report，准确率95%。The model Qwen3-TTS支持10种语言，"
        "网址https://example.com，邮箱abc@163.com。下载速度是100MB/s，延迟20ms。"
    ),
    "es": ("es",
        "¡Claro! Su pedido n.º 4521 cuesta 25,50 € y llegará el 3 de mayo de 2026, entre las 9:30 y las "
        "14:00 h. Es la 2.ª entrega de este mes y pesa 3,5 kg. El descuento es del 15 %, así que ahorra "
        "1.250 pesos. Si tiene dudas, llame al +34 912 345 678 o escriba a soporte@tienda.es. Sr. García, "
        "gracias por su paciencia."
    ),
    "pt": ("pt",
        "Claro! Seu pedido nº 4521 custa R$ 129,90 e chega no dia 15/03/2026, entre 9h30 e 14h. É a 2ª "
        "entrega deste mês e pesa 3,5 kg. O desconto é de 15%, uma economia de 1.250 reais. Se precisar, "
        "ligue para +55 (11) 3333-4444 ou escreva para suporte@loja.com.br. Obrigado, Sr. Souza!"
    ),
    "ru": ("ru",
        "Конечно! Ваш заказ № 4521 стоит 2 499,90 руб. и придёт 15.03.2026, с 9:30 до 14:00. Это 2-я "
        "доставка в этом месяце, вес 3,5 кг. Скидка составит 15 %, то есть 1 250 руб. Если возникнут "
        "вопросы, звоните 8-800-555-35-35 или пишите на support@shop.ru. Спасибо за терпение!"
    ),
    "ru-cases": ("ru",
        "До 5 человек придут к 2 часам; речь о 3 книгах на 3 этаже в 21 веке. Вес 1,5-2 кг, цена до "
        "726 руб. 49 коп., акция с 14.03.2022 до 23:45. Купил 2 книги и 1 тетрадь на 1 неделю, в 2020 "
        "году их было 21, к 2025 году — около 10 тысяч."
    ),
    "ja": ("ja",
        "ご注文ありがとうございます。合計は¥12,800（税込）で、3月5日(水)の14:30頃にお届けします。"
        "今回は2回目のご利用なので、10%割引が適用されました。重さは約2.5kgです。"
        "ご不明な点は03-1234-5678、またはsupport@example.jpまでお問い合わせください。"
    ),
    "ko": ("ko",
        "주문해 주셔서 감사합니다. 결제 금액은 ₩25,000이고, 6월 10일(월) 오후 3:30에 도착할 예정입니다. "
        "이번이 3번째 주문이라 15% 할인이 적용되었어요. 상품 무게는 약 1.2kg입니다. "
        "문의는 010-1234-5678 또는 help@example.co.kr로 연락해 주세요."
    ),
}


def token_deltas(text: str, rng: random.Random) -> list[str]:
    deltas, i = [], 0
    while i < len(text):
        step = rng.randint(2, 6)
        deltas.append(text[i:i + step])
        i += step
    return deltas


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def row(name: str, chars: int | None, wall: list[float], cpu: list[float], rounds: int | None) -> str:
    figures = [statistics.median(wall), percentile(wall, 99), max(wall)]
    figures += [statistics.median(cpu), percentile(cpu, 99), max(cpu)]
    per_reply = f"{sum(wall) / rounds:>9.2f}" if rounds else ""
    cells = " ".join(f"{v:>9.3f}" if i < 3 else f"{v:>8.3f}" for i, v in enumerate(figures))
    return f"{name:<12} {chars if chars is not None else '':>6} {len(wall):>6} {cells} {per_reply}"


def bench_lexicon() -> Lexicon:
    """1,000 rules: most never match (as in a real dictionary), some match the replies."""
    rules = [{"match": f"Term{i}x", "say": f"term {i}"} for i in range(990)]
    rules += [
        {"match": "Qwen3-TTS", "say": "chwen three T T S"},
        {"match": "GPT", "say": "G P T"},
        {"match": "Smith", "say": "Smyth", "case_sensitive": True},
        {"match": "iPhone", "say": "eye phone"},
        {"match": "GPU", "say": "graphics card"},
        {"match": "report", "say": "write-up"},
        {"match": "docs", "say": "documentation", "whole_word": False},
        {"match": r"v(\d+)\.(\d+)", "say": r"version \1 point \2", "regex": True},
        {"match": r"[A-Z]{2,}-\d+", "say": "a code", "regex": True},
        {"match": r"colou?r", "say": "hue", "regex": True},
    ]
    return Lexicon(rules)


def run(
    rounds: int, seed: int, warm_cache: bool, lexicon: Lexicon | None = None
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per-call wall-clock and thread-CPU milliseconds, by reply."""
    rng = random.Random(seed)
    wall: dict[str, list[float]] = {name: [] for name in REPLIES}
    cpu: dict[str, list[float]] = {name: [] for name in REPLIES}
    for _ in range(rounds):
        for name, (language, text) in REPLIES.items():
            if not warm_cache:
                normalize_span.cache_clear()
            normalizer = StreamingNormalizer(language, lexicon=lexicon)
            calls = [partial(normalizer.push, d) for d in token_deltas(text, rng)] + [normalizer.flush]
            for call in calls:
                start_cpu, start = time.thread_time(), time.perf_counter()
                call()
                wall[name].append((time.perf_counter() - start) * 1000)
                cpu[name].append((time.thread_time() - start_cpu) * 1000)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warm-cache", action="store_true", help="keep wetext results across replies")
    parser.add_argument("--lexicon", action="store_true", help="with a 1,000-rule pronunciation dictionary")
    args = parser.parse_args()

    start = time.perf_counter()
    warm_up()
    load_ms = (time.perf_counter() - start) * 1000
    lexicon = bench_lexicon() if args.lexicon else None
    run(1, args.seed + 1, args.warm_cache, lexicon)  # first-call effects (imports, allocator) out of the figures
    wall, cpu = run(args.rounds, args.seed, args.warm_cache, lexicon)

    load = os.getloadavg()[0]
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, load average "
          f"{load:.2f}; wetext load {load_ms:.0f} ms; span cache {'warm' if args.warm_cache else 'cleared per reply'}; "
          f"{args.rounds} rounds, deltas of 2-6 characters"
          + ("; 1,000-rule dictionary" if lexicon else ""))
    print(f"{'reply':<12} {'chars':>6} {'calls':>6} {'wall p50':>9} {'wall p99':>9} {'wall max':>9} "
          f"{'cpu p50':>8} {'cpu p99':>8} {'cpu max':>8} {'ms/reply':>9}")
    all_wall: list[float] = []
    all_cpu: list[float] = []
    for name in REPLIES:
        all_wall += wall[name]
        all_cpu += cpu[name]
        print(row(name, len(REPLIES[name][1]), wall[name], cpu[name], args.rounds))
    print(row("all", None, all_wall, all_cpu, None))
    print("(milliseconds per push/flush call; cpu = thread CPU time, which excludes time other processes "
          "held the core)")


if __name__ == "__main__":
    main()
