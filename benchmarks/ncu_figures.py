"""Nsight Compute's figures of one bg_sample launch, a deal's worth, beside
the issue model's (gpu_check.sh's last step).

    ncu --csv --metrics ... python3 -c '...sample_best(DEALS, ...)' > ncu.csv
    python3 benchmarks/ncu_figures.py ncu.csv DEALS

Reads ncu's CSV (one row a metric: "Metric Name", "Metric Value") and prints
the warp-instructions executed a deal, the active threads an instruction
(SIMT efficiency: that over 32) and the achieved occupancy, then the model's
figures for the same deals as docs/gpu.md quotes them (the standard 26/26
row of this kernel), so that the measured and the modelled stand side by side.
"""
import csv
import re
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "gpu.md"


def measured(path):
    """{metric: value} of the last launch profiled in ncu's CSV output."""
    values = {}
    with open(path, newline="") as lines:
        rows = [line for line in lines if line.startswith('"')]      # ncu's own lines start with ==
    for row in csv.DictReader(rows):
        value = row["Metric Value"].replace(",", "")
        values[row["Metric Name"]] = float(value) if value else None
    return values


def modelled():
    """(warp-instructions a deal, SIMT efficiency) of this kernel's standard 26/26 row of the page."""
    for line in PAGE.read_text().splitlines():
        found = re.match(r"standard 26/26\s{2,}\d+\s+[\d.]+\s+this\s+([\d,]+)\s+.*?\s([\d.]+)\s+[\d.]+ / ", line)
        if found:
            return int(found.group(1).replace(",", "")), float(found.group(2))
    raise SystemExit(f"ncu_figures: no standard 26/26 row of this kernel in {PAGE}")


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: ncu_figures.py NCU_CSV DEALS")
    values, deals = measured(sys.argv[1]), int(sys.argv[2])
    needed = ("smsp__inst_executed.sum", "smsp__thread_inst_executed_per_inst_executed.ratio",
              "sm__warps_active.avg.pct_of_peak_sustained_active", "gpu__time_duration.sum")
    missing = [name for name in needed if values.get(name) is None]
    if missing:
        raise SystemExit(f"ncu_figures: {sys.argv[1]} has no {missing[0]}")
    instructions, simt = modelled()
    threads = values["smsp__thread_inst_executed_per_inst_executed.ratio"]
    print(f"bg_sample, {deals:,} standard 26/26 deals, one launch (Nsight Compute, measured)")
    print(f"  warp-instructions executed a deal {values['smsp__inst_executed.sum'] / deals:8.1f}"
          f"   the model (docs/gpu.md) {instructions}")
    print(f"  SIMT efficiency                   {threads / 32:8.2f}   the model {simt:.2f}")
    print(f"  achieved occupancy                {values['sm__warps_active.avg.pct_of_peak_sustained_active']:7.1f} %")
    seconds = values["gpu__time_duration.sum"] / 1e9       # ncu reports it in ns
    print(f"  deals a second (profiled)         {deals / seconds:10.3g}")


if __name__ == "__main__":
    main()
