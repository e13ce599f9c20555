#!/usr/bin/env python3
"""Draws the Tracy timeline of one step from a capture's CSV: each thread's zones as bars over
time, nested zones below their parent, as Tracy's timeline shows them.

    python3 profiling/timeline.py EVENTS.csv OUT.png [--step N] [--width PX]

EVENTS.csv is `tracy-csvexport --unwrap --plot TRACE` (profiling/capture.sh writes it as
OUT/NAME-events.csv). The step drawn is the N-th `step` zone (default: the one of median
length, a typical step); the thread that ran it (the calling thread) comes first, then the pool's workers in the order
they start work. Needs Pillow (`pip install pillow`).
"""

import argparse
import colorsys
import csv
import hashlib
import sys

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError:
    sys.exit("timeline.py needs Pillow: pip install pillow")

ROW = 17  # pixels per nesting level
LEFT = 120  # room for the thread labels
PAD = 8


def read_zones(path):
    """(name, start_ns, end_ns, thread) of every zone; plot rows (no thread) are skipped."""
    zones = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if not row["thread"]:
                continue
            start = int(row["ns_since_start"])
            zones.append((row["name"], start, start + int(row["exec_time_ns"]), row["thread"]))
    return zones


def depths(zones):
    """Nesting level of each zone of one thread, by containment (zones sorted by start)."""
    stack, out = [], []
    for _, start, end, _ in zones:
        while stack and stack[-1] <= start:
            stack.pop()
        out.append(len(stack))
        stack.append(end)
    return out


def color(name):
    """A fixed, light colour per zone name, so a zone looks alike in every picture."""
    h = int(hashlib.md5(name.encode()).hexdigest()[:6], 16) / 0xFFFFFF
    r, g, b = colorsys.hls_to_rgb(h, 0.72, 0.55)
    return (int(r * 255), int(g * 255), int(b * 255))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("events")
    parser.add_argument("png")
    parser.add_argument("--step", type=int, help="which step zone (default: of median length)")
    parser.add_argument("--width", type=int, default=1400)
    args = parser.parse_args()

    zones = read_zones(args.events)
    steps = sorted(z for z in zones if z[0] == "step")
    if not steps:
        sys.exit(f"no `step` zones in {args.events}")
    if args.step is None:
        by_length = sorted(range(len(steps)), key=lambda i: steps[i][2] - steps[i][1])
        args.step = by_length[len(steps) // 2]
    _, t0, t1, caller = steps[args.step]
    inside = [z for z in zones if z[1] >= t0 and z[2] <= t1]
    threads = sorted({z[3] for z in inside}, key=lambda t: (t != caller, min(z[1] for z in inside if z[3] == t)))

    font = ImageFont.load_default(size=11)
    lanes = []  # (label, zones with their depth)
    for i, thread in enumerate(threads):
        mine = sorted((z for z in inside if z[3] == thread), key=lambda z: (z[1], -z[2]))
        label = "calling thread" if thread == caller else f"pool worker {i}"
        lanes.append((label, list(zip(mine, depths(mine)))))
    heights = [(max(d for _, d in lane) + 1) * ROW + PAD for _, lane in lanes]
    axis = 22
    height = axis + sum(heights) + PAD
    image = Image.new("RGB", (args.width, height), "white")
    draw = ImageDraw.Draw(image)
    span = t1 - t0
    scale = (args.width - LEFT - PAD) / span

    def x(t):
        return LEFT + (t - t0) * scale

    # Time axis in milliseconds from the start of the step.
    ms = span / 1e6
    tick = next(s for s in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100) if ms / s <= 12)
    k = 0
    while k * tick <= ms + 1e-9:
        px = x(t0 + k * tick * 1e6)
        draw.line([(px, axis - 4), (px, height)], fill=(225, 225, 225))
        draw.text((px + 2, 4), f"{k * tick:g} ms", fill="black", font=font)
        k += 1

    y = axis
    for (label, lane), h in zip(lanes, heights):
        draw.line([(0, y), (args.width, y)], fill=(180, 180, 180))
        draw.text((4, y + 3), label, fill="black", font=font)
        for (name, start, end, _), depth in lane:
            top = y + 3 + depth * ROW
            left, right = x(start), max(x(end), x(start) + 1)
            # Outlines only where they leave room for the colour.
            edge = (90, 90, 90) if right - left >= 4 else None
            draw.rectangle([left, top, right, top + ROW - 3], fill=color(name), outline=edge)
            text = name
            while text and draw.textlength(text, font=font) > right - left - 4:
                text = text[:-1]
            if len(text) >= 4:
                draw.text((left + 2, top + 1), text if text == name else text[:-1] + "…", fill="black", font=font)
        y += h
    # A palette image: the picture has a few dozen colours and stays small.
    image.convert("P", palette=Image.ADAPTIVE, colors=64).save(args.png, optimize=True)
    print(f"{args.png}: step {args.step} (from 0) of {len(steps)}, {span / 1e6:.2f} ms, {len(threads)} threads")


if __name__ == "__main__":
    main()
