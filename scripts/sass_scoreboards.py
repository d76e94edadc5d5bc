#!/usr/bin/env python3
"""Scoreboards of a kernel's main loop, from `cuobjdump -sass` text (sm_70 and newer).

Each SASS instruction carries control bits in the top of its 128-bit word: stall cycles, yield,
the scoreboard it sets when it writes (variable-latency results: loads, DMMA), the one it sets
when it has read its operands, and the mask of scoreboards it waits for. There are six, so ptxas
shares them; an instruction that waits for a shared-memory load's scoreboard also waits for a
global load that set the same one. This prints, for the longest backward-branch loop, the
instructions that wait on a scoreboard a global load (LDG) set and nothing has waited for since,
i.e. that stall behind global memory. Only DMMA, HMMA, FFMA, DFMA and shared loads are listed:
in these kernels they never need a global load's data. Perf notes §156: one DMMA a K-step of
the register-staged Z 64x64x8 kernels, where ncu's sampling put 6.6% of Z NN 2048^2's stalls.
Python 3 stdlib only.

  scripts/sass_scoreboards.py KERNEL.sass          summary line and the waiting instructions
  scripts/sass_scoreboards.py KERNEL.sass --all    every loop instruction with its control bits
"""
import re
import sys

LINE = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]+) \*/")
WORD = re.compile(r"/\* (0x[0-9a-f]+) \*/")
BRANCH = re.compile(r"BRA\s+(?:!?U?P\w+,\s*)?0x([0-9a-f]+)")


def instructions(path):
    """(address, text, stall, write scoreboard, read scoreboard, wait mask) per instruction."""
    lines = open(path).read().split("\n")
    out = []
    for i, line in enumerate(lines[:-1]):
        m = LINE.match(line)
        second = WORD.search(lines[i + 1]) if m else None
        if not m or not second:
            continue
        ctrl = int(second.group(1), 16) >> 41  # bits 105-125 of the instruction
        out.append((int(m.group(1), 16), m.group(2), ctrl & 0xF, (ctrl >> 5) & 7, (ctrl >> 8) & 7, (ctrl >> 11) & 0x3F))
    return out


def main_loop(ins):
    """First and last index of the longest span closed by a backward branch."""
    index = {a: k for k, (a, *_) in enumerate(ins)}
    best = (0, -1)
    for k, (_, text, *_) in enumerate(ins):
        m = BRANCH.search(text)
        if m and int(m.group(1), 16) in index:
            start = index[int(m.group(1), 16)]
            if start < k and k - start > best[1] - best[0]:
                best = (start, k)
    return best


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    ins = instructions(argv[1])
    first, last = main_loop(ins)
    in_flight, waits = set(), []
    for k in range(first, last + 1):
        _, text, stall, wb, rb, mask = ins[k]
        wanted = {b for b in range(6) if mask >> b & 1}
        if len(argv) > 2 and argv[2] == "--all":
            print("%4d %-60s stall %2d set %s read %s wait %s" % (k - first, text[:60], stall, "-" if wb == 7 else wb,
                                                                  "-" if rb == 7 else rb, sorted(wanted)))
        if wanted & in_flight and re.search(r"\b(DMMA|HMMA|LDS|LDSM|FFMA|DFMA)\b", text):  # need no global data
            waits.append((k - first, text, sorted(wanted & in_flight)))
        in_flight -= wanted
        if "LDG" in text and wb != 7:
            in_flight.add(wb)
    print("loop of %d instructions: %d wait on a scoreboard a global load set" % (last - first + 1, len(waits)))
    for k, text, sbs in waits:
        print("  %4d %-60s scoreboard %s" % (k, text[:60], sbs))


if __name__ == "__main__":
    main(sys.argv)
